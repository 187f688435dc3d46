# LayerNorm backward with the weight and bias gradients (2048 tokens x 1024),
# as Thunder emits it: dx from two row reductions, dw = sum(dy * xhat, 0) and
# db = sum(dy, 0) over all rows, each cast to bf16.
# Exercises: the combined kernel: dx's rows and the column sums dw and db in
# one inner persistent kernel (each block adds its rows' columns, the grid
# meets at a barrier and adds the blocks' partials): one kernel, x and dy
# read once.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T3 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T4 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T5 = fd.ops.cast(T0, dtype=DataType.Float)
    T6 = fd.ops.cast(T1, dtype=DataType.Float)
    T7 = fd.ops.broadcast_in_dim(T2, shape=[2048, 1024], broadcast_dims=[0, 1])
    T8 = fd.ops.broadcast_in_dim(T3, shape=[2048, 1024], broadcast_dims=[0, 1])
    T9 = fd.ops.sub(T6, T7)
    T10 = fd.ops.mul(T9, T8)
    T11 = fd.ops.broadcast_in_dim(T4, shape=[2048, 1024], broadcast_dims=[1])
    T12 = fd.ops.cast(T11, dtype=DataType.Float)
    T13 = fd.ops.mul(T5, T12)
    T14 = fd.ops.sum(T13, dims=[1], keepdim=False, dtype=DataType.Null)
    T15 = fd.ops.mul(T13, T10)
    T16 = fd.ops.sum(T15, dims=[1], keepdim=False, dtype=DataType.Null)
    S17 = fd.define_scalar(0.0009765625, dtype=DataType.Double)
    T18 = fd.ops.mul(T14, S17)
    T19 = fd.ops.mul(T16, S17)
    T20 = fd.ops.broadcast_in_dim(T18, shape=[2048, 1024], broadcast_dims=[0])
    T21 = fd.ops.broadcast_in_dim(T19, shape=[2048, 1024], broadcast_dims=[0])
    T22 = fd.ops.sub(T13, T20)
    T23 = fd.ops.mul(T10, T21)
    T24 = fd.ops.sub(T22, T23)
    T25 = fd.ops.mul(T24, T8)
    T26 = fd.ops.cast(T25, dtype=DataType.BFloat16)
    fd.add_output(T26)
    T27 = fd.ops.mul(T5, T10)
    T28 = fd.ops.sum(T27, dims=[0], keepdim=False, dtype=DataType.Null)
    T29 = fd.ops.cast(T28, dtype=DataType.BFloat16)
    T30 = fd.ops.sum(T5, dims=[0], keepdim=False, dtype=DataType.Null)
    T31 = fd.ops.cast(T30, dtype=DataType.BFloat16)
    fd.add_output(T29)
    fd.add_output(T31)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(2097152, dtype=torch.bfloat16, device='cuda:0').as_strided((2048, 1024), (1024, 1)),
    torch.randn(2097152, dtype=torch.bfloat16, device='cuda:0').as_strided((2048, 1024), (1024, 1)),
    torch.randn(2048, dtype=torch.float32, device='cuda:0').as_strided((2048, 1), (1, 1)),
    torch.rand(2048, dtype=torch.float32, device='cuda:0').as_strided((2048, 1), (1, 1)),
    torch.randn(1024, dtype=torch.bfloat16, device='cuda:0').as_strided((1024,), (1,)),
]
fd.execute(inputs)
