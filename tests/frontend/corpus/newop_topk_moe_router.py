# Style G (new op: topk), benchmark builder: an MoE router - softmax over
# experts, topk(probs, k=k, dim=-1, largest=True, sorted=False) with k a
# define_scalar of the top_k parameter, then the kept weights renormalized.
# bf16 logits [32, 8], top_k=2.
import torch
from nvfuser_direct import FusionDefinition, DataType


def router_fusion(fd: FusionDefinition, dtype: DataType, top_k: int = 2) -> None:
    logits = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    x = fd.ops.cast(logits, dtype=DataType.Float)
    m = fd.ops.max(x, dims=[1], keepdim=True)
    e = fd.ops.exp(fd.ops.sub(x, m))
    probs = fd.ops.div(e, fd.ops.sum(e, dims=[1], keepdim=True))
    k = fd.define_scalar(top_k, dtype=DataType.Int)
    weights, experts = fd.ops.topk(probs, k=k, dim=-1, largest=True, sorted=False)
    norm = fd.ops.sum(weights, dims=[1], keepdim=True)
    fd.add_output(fd.ops.cast(fd.ops.div(weights, norm), dtype=dtype))
    fd.add_output(experts)


with FusionDefinition() as fd:
    router_fusion(fd, DataType.BFloat16, top_k=2)

inputs = [torch.randn(32, 8, device="cuda", dtype=torch.bfloat16)]
fd.execute(inputs)
