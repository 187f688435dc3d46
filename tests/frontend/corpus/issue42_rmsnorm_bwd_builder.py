# Style C (benchmark builder, issue 42 item 4a): RMSNorm backward as nvFuser's
# rmsnorm_bwd benchmark writes it - bf16 x/grad/weight cast to Float, a Float
# [N, 1] rstd input broadcast with broadcast_dims=[0, 1], dx from row sums (one
# of them over the size-1 axis of an [N, 1] tensor) and the weight gradient as
# a column sum over all rows beside the row sums. bf16 [2048, 4096].
import torch
from nvfuser_direct import FusionDefinition, DataType


def rmsnorm_bwd_fusion(fd: FusionDefinition, dtype: DataType) -> None:
    T4 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    T5 = fd.define_tensor(shape=[-1, 1], contiguity=[True, None], dtype=DataType.Float, is_cpu=False)
    T6 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    T7 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=dtype, is_cpu=False)
    S0 = fd.define_scalar(2.0, dtype=DataType.Double)
    if dtype in (DataType.Half, DataType.BFloat16):
        T4 = fd.ops.cast(T4, dtype=DataType.Float)
        T6 = fd.ops.cast(T6, dtype=DataType.Float)
        T7 = fd.ops.cast(T7, dtype=DataType.Float)
    T14 = fd.ops.broadcast_in_dim(T5, shape=T4.shape(), broadcast_dims=[0, 1])
    T15 = fd.ops.reciprocal(T14)
    T16 = fd.ops.mul(T4, T15)
    T20 = fd.ops.broadcast_in_dim(T7, shape=T4.shape(), broadcast_dims=[1])
    T23 = fd.ops.mul(T6, T16)
    T24 = fd.ops.mul(T6, T20)
    T25 = fd.ops.sum(T23, dims=[0], keepdim=False, dtype=DataType.Null)
    T28 = fd.ops.mul(T24, T15)
    T29 = fd.ops.neg(T24)
    T30 = fd.ops.mul(T29, T4)
    T32 = fd.ops.pow(T14, S0)
    T33 = fd.ops.reciprocal(T32)
    T34 = fd.ops.mul(T30, T33)
    T35 = fd.ops.sum(T34, dims=[1], keepdim=False, dtype=DataType.Null)
    T41 = fd.ops.broadcast_in_dim(T35, shape=[T4.size(0), 1], broadcast_dims=[0])
    T43 = fd.ops.mul(S0, T5)
    T44 = fd.ops.reciprocal(T43)
    T45 = fd.ops.mul(T41, T44)
    S48 = fd.ops.reciprocal(T4.size(1))
    T49 = fd.ops.mul(T45, S48)
    T50 = fd.ops.sum(T49, dims=[1], keepdim=False, dtype=DataType.Null)
    T54 = fd.ops.broadcast_in_dim(T50, shape=[T4.size(0), 1], broadcast_dims=[0])
    T58 = fd.ops.broadcast_in_dim(T54, shape=T4.shape(), broadcast_dims=[0, 1])
    T59 = fd.ops.mul(T58, S0)
    T62 = fd.ops.mul(T59, T4)
    T63 = fd.ops.add(T28, T62)
    if dtype in (DataType.Half, DataType.BFloat16):
        T63 = fd.ops.cast(T63, dtype=dtype)
        T25 = fd.ops.cast(T25, dtype=dtype)
    fd.add_output(T63)
    fd.add_output(T25)


with FusionDefinition() as fd:
    rmsnorm_bwd_fusion(fd, DataType.BFloat16)

inputs = [
    torch.randn(2048, 4096, device="cuda", dtype=torch.bfloat16),
    torch.testing.make_tensor((2048, 1), dtype=torch.float32, device="cuda", low=0.5, high=2.0),
    torch.randn(2048, 4096, device="cuda", dtype=torch.bfloat16),
    torch.randn(4096, device="cuda", dtype=torch.bfloat16),
]
fd.execute(inputs)
