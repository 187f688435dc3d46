# Seed 001 (nvFuser PR #2815, "MarkAliasesPrepare applies bookend from inputs as well
# as outputs"): the test_nanogpt_layer_norm reproducer, copied as printed in the PR.
# Exercises: a 16x128x1600 LayerNorm with define_vector shapes and as_strided inputs,
# where bookending the weight/bias broadcast_in_dim from the inputs lost vectorization.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4, T5 = fd.ops.var_mean(T3, dims=[2], correction=0, keepdim=False)
    S6 = fd.define_scalar(16, dtype=DataType.Int)
    S7 = fd.define_scalar(128, dtype=DataType.Int)
    S8 = fd.define_scalar(1, dtype=DataType.Int)
    V9 = fd.define_vector([S6, S7, S8], dtype=DataType.Int)
    T10 = fd.ops.broadcast_in_dim(T4, shape=V9, broadcast_dims=[0, 1])
    S11 = fd.define_scalar(16, dtype=DataType.Int)
    S12 = fd.define_scalar(128, dtype=DataType.Int)
    S13 = fd.define_scalar(1, dtype=DataType.Int)
    V14 = fd.define_vector([S11, S12, S13], dtype=DataType.Int)
    T15 = fd.ops.broadcast_in_dim(T5, shape=V14, broadcast_dims=[0, 1])
    S16 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
    T17 = fd.ops.add(T10, S16)
    T18 = fd.ops.rsqrt(T17)
    S19 = fd.define_scalar(16, dtype=DataType.Int)
    S20 = fd.define_scalar(128, dtype=DataType.Int)
    S21 = fd.define_scalar(1600, dtype=DataType.Int)
    V22 = fd.define_vector([S19, S20, S21], dtype=DataType.Int)
    T23 = fd.ops.broadcast_in_dim(T15, shape=V22, broadcast_dims=[0, 1, 2])
    T24 = fd.ops.sub(T3, T23)
    S25 = fd.define_scalar(16, dtype=DataType.Int)
    S26 = fd.define_scalar(128, dtype=DataType.Int)
    S27 = fd.define_scalar(1600, dtype=DataType.Int)
    V28 = fd.define_vector([S25, S26, S27], dtype=DataType.Int)
    T29 = fd.ops.broadcast_in_dim(T18, shape=V28, broadcast_dims=[0, 1, 2])
    T30 = fd.ops.mul(T24, T29)
    S31 = fd.define_scalar(16, dtype=DataType.Int)
    S32 = fd.define_scalar(128, dtype=DataType.Int)
    S33 = fd.define_scalar(1600, dtype=DataType.Int)
    V34 = fd.define_vector([S31, S32, S33], dtype=DataType.Int)
    T35 = fd.ops.broadcast_in_dim(T1, shape=V34, broadcast_dims=[2])
    T36 = fd.ops.cast(T35, dtype=DataType.Float)
    T37 = fd.ops.mul(T30, T36)
    S38 = fd.define_scalar(16, dtype=DataType.Int)
    S39 = fd.define_scalar(128, dtype=DataType.Int)
    S40 = fd.define_scalar(1600, dtype=DataType.Int)
    V41 = fd.define_vector([S38, S39, S40], dtype=DataType.Int)
    T42 = fd.ops.broadcast_in_dim(T2, shape=V41, broadcast_dims=[2])
    T43 = fd.ops.cast(T42, dtype=DataType.Float)
    T44 = fd.ops.add(T37, T43)
    T45 = fd.ops.cast(T44, dtype=DataType.BFloat16)
    fd.add_output(T45)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(3276800, dtype=torch.bfloat16, device='cuda:0').as_strided((16, 128, 1600), (204800, 1600, 1)),
    torch.randn(1600, dtype=torch.bfloat16, device='cuda:0').as_strided((1600,), (1,)),
    torch.randn(1600, dtype=torch.bfloat16, device='cuda:0').as_strided((1600,), (1,)),
]
fd.execute(inputs)
