# The case seed 001 bookends from the inputs: meta ops applied to fusion inputs before
# the compute body (reshape of a [2048, 1600] bf16 input to [16, 128, 1600]; bf16 weight
# and bias via broadcast_in_dim to [1, 1, 1600] + expand), then a LayerNorm and a reshape
# back. Exercises: MarkAliasesPrepare-style input/output bookending, expanded broadcasts.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T3 = fd.ops.reshape(T0, new_shape=[16, 128, 1600])
    T4 = fd.ops.broadcast_in_dim(T1, shape=[1, 1, 1600], broadcast_dims=[2])
    T5 = fd.ops.expand(T4, shape=[16, 128, 1600])
    T6 = fd.ops.broadcast_in_dim(T2, shape=[1, 1, 1600], broadcast_dims=[2])
    T7 = fd.ops.expand(T6, shape=[16, 128, 1600])
    T8 = fd.ops.cast(T3, dtype=DataType.Float)
    T9, T10 = fd.ops.var_mean(T8, dims=[2], correction=0, keepdim=False)
    T11 = fd.ops.broadcast_in_dim(T9, shape=[16, 128, 1], broadcast_dims=[0, 1])
    S12 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
    T13 = fd.ops.add(T11, S12)
    T14 = fd.ops.rsqrt(T13)
    T15 = fd.ops.broadcast_in_dim(T10, shape=[16, 128, 1], broadcast_dims=[0, 1])
    T16 = fd.ops.broadcast_in_dim(T15, shape=[16, 128, 1600], broadcast_dims=[0, 1, 2])
    T17 = fd.ops.sub(T8, T16)
    T18 = fd.ops.broadcast_in_dim(T14, shape=[16, 128, 1600], broadcast_dims=[0, 1, 2])
    T19 = fd.ops.mul(T17, T18)
    T20 = fd.ops.cast(T5, dtype=DataType.Float)
    T21 = fd.ops.mul(T19, T20)
    T22 = fd.ops.cast(T7, dtype=DataType.Float)
    T23 = fd.ops.add(T21, T22)
    T24 = fd.ops.cast(T23, dtype=DataType.BFloat16)
    T25 = fd.ops.reshape(T24, new_shape=[2048, 1600])
    fd.add_output(T25)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(3276800, dtype=torch.bfloat16, device='cuda:0').as_strided((2048, 1600), (1600, 1)),
    torch.randn(1600, dtype=torch.bfloat16, device='cuda:0').as_strided((1600,), (1,)),
    torch.randn(1600, dtype=torch.bfloat16, device='cuda:0').as_strided((1600,), (1,)),
]
fd.execute(inputs)
