# Style C (benchmark builder): softmax_bwd_fusion with an if/elif/else on the
# dtype (elif dtype == DataType.Half), a conditional expression choosing the
# broadcast mask, and keepdim=True reductions used directly. bf16 [24, 100].
import torch
from nvfuser_direct import FusionDefinition, DataType


def softmax_bwd_fusion(fd: FusionDefinition, dtype: DataType, reduction_axis: int = 1):
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    if dtype == DataType.BFloat16:
        T0 = fd.ops.cast(T0, dtype=DataType.Float)
        T1 = fd.ops.cast(T1, dtype=DataType.Float)
    elif dtype == DataType.Half:
        T0 = fd.ops.cast(T0, DataType.Float)
        T1 = fd.ops.cast(T1, DataType.Float)
    else:
        pass
    T2 = fd.ops.mul(T0, T1)
    T3 = fd.ops.sum(T2, dims=[reduction_axis], keepdim=True)
    T4 = fd.ops.sub(T1, T3)
    T5 = fd.ops.mul(T0, T4)
    mask = [False, True] if reduction_axis == 1 else [True, False]
    T6 = fd.ops.sum(T5, dims=[reduction_axis], keepdim=False)
    T7 = fd.ops.broadcast(T6, is_broadcast_dim=mask)
    if dtype != DataType.Float:
        T5 = fd.ops.cast(T5, dtype=dtype)
    fd.add_output(T5)
    fd.add_output(T7)


with FusionDefinition() as fd:
    softmax_bwd_fusion(fd, DataType.BFloat16)

out = torch.rand(24, 100, device="cuda", dtype=torch.bfloat16)
grad = torch.randn(24, 100, device="cuda", dtype=torch.bfloat16)
inputs = [out, grad]
fd.execute(inputs)
