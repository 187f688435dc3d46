# Style B (Thunder trace, issue 42 item 5): cross-entropy as Thunder emits it
# with the old nvfuser module - log-softmax over the vocabulary (max, sub, exp,
# sum, log, sub), take_along_axis of the [N, 1] label, negative mean over N.
# The inner persistent kernel gathers the label's log-prob in its row pass, so
# the [N, V] log-softmax never reaches global memory. bf16 [256, 32064].
import torch
from nvfuser import FusionDefinition, DataType
def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False)
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.max(T2, dims=[1], keepdim=False, dtype=DataType.Null)
    T4 = fd.ops.broadcast_in_dim(T3, shape=[256, 1], broadcast_dims=[0])
    T5 = fd.ops.broadcast_in_dim(T4, shape=[256, 32064], broadcast_dims=[0, 1])
    T6 = fd.ops.sub(T2, T5)
    T7 = fd.ops.exp(T6)
    T8 = fd.ops.sum(T7, dims=[1], keepdim=False, dtype=DataType.Null)
    T9 = fd.ops.log(T8)
    T10 = fd.ops.broadcast_in_dim(T9, shape=[256, 1], broadcast_dims=[0])
    T11 = fd.ops.broadcast_in_dim(T10, shape=[256, 32064], broadcast_dims=[0, 1])
    T12 = fd.ops.sub(T6, T11)
    T13 = fd.ops.broadcast_in_dim(T1, shape=[256, 1], broadcast_dims=[0])
    T14 = fd.ops.take_along_axis(T12, T13, dim=1)
    T15 = fd.ops.sum(T14, dims=[0, 1], keepdim=False, dtype=DataType.Null)
    S16 = fd.define_scalar(-1.0 / 256, dtype=DataType.Double)
    T17 = fd.ops.mul(T15, S16)
    fd.add_output(T17)
with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)
inputs = [
    torch.randn(256, 32064, dtype=torch.bfloat16, device='cuda:0'),
    torch.randint(0, 32064, (256,), dtype=torch.int64, device='cuda:0'),
]
fd.execute(inputs)
