# The random ops of nvFuser's op list (issue 41): uniform and normal with and
# without rng_seed/rng_offset, rand_like and randn_like (the old frontend's
# keyword seed too), a dropout mask from them, and sdpfa_bwd after sdpfa_fwd.
from nvfuser_direct import FusionDefinition, DataType


def fusion_func(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[2, 4, 16, 8], contiguity=[True, True, True, True], dtype=DataType.BFloat16)
    T1 = fd.define_tensor(shape=[2, 4, 16, 8], contiguity=[True, True, True, True], dtype=DataType.BFloat16)
    S2 = fd.define_scalar(None, dtype=DataType.Int)
    S3 = fd.define_scalar(None, dtype=DataType.Int)
    S4 = fd.define_scalar(0.0, dtype=DataType.Double)
    S5 = fd.define_scalar(1.0, dtype=DataType.Double)
    T6 = fd.ops.uniform(S4, S5, shape=[2, 4, 16, 8], rng_seed=S2, rng_offset=S3, dtype=DataType.BFloat16)
    T7 = fd.ops.normal(0.5, 2.0, T0.shape(), dtype=DataType.Float)
    T8 = fd.ops.rand_like(T0)
    T9 = fd.ops.randn_like(T1, rng_seed=S2, rng_offset=7)
    S10 = fd.define_scalar(0.9, dtype=DataType.Double)
    T11 = fd.ops.lt(T8, S10)
    T12 = fd.ops.where(T11, T0, 0.0)
    T13, T14, T15, T16 = fd.ops.sdpfa_fwd(T0, T1, T1, dropout_p=0.0, is_causal=True, scale=None)
    T17, T18, T19 = fd.ops.sdpfa_bwd(T12, T0, T1, T1, T13, T14, 0.0, True, T15, T16, None)
    fd.add_output(T6)
    fd.add_output(T7)
    fd.add_output(T9)
    fd.add_output(T17)
    fd.add_output(T18)
    fd.add_output(T19)


with FusionDefinition() as fd:
    fusion_func(fd)

inputs = [
    torch.randn((2, 4, 16, 8), dtype=torch.bfloat16, device="cuda:0"),
    torch.randn((2, 4, 16, 8), dtype=torch.bfloat16, device="cuda:0"),
    20260217,
    4,
]
fd.execute(inputs)
