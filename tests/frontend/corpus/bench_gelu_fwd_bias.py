# Style C (benchmark builder): gelu_fwd_fusion with named scalar constants
# S_079/S_004 from fd.define_scalar(float) without dtype, bias broadcast via
# shape=[1, input.size(-1)], and `if dtype is not DataType.Float` casts.
import torch
from nvfuser_direct import FusionDefinition, DataType


def gelu_fwd_fusion(fd: FusionDefinition, dtype: DataType) -> None:
    input = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    bias = fd.define_tensor(shape=[-1], contiguity=[True], dtype=dtype, is_cpu=False)
    if dtype is not DataType.Float:
        input = fd.ops.cast(input, dtype=DataType.Float)
        bias = fd.ops.cast(bias, dtype=DataType.Float)
    S_079 = fd.define_scalar(0.79788456)
    S_004 = fd.define_scalar(0.044715)
    V1 = fd.define_scalar(1.0)
    V_half = fd.define_scalar(0.5)
    bias = fd.ops.broadcast_in_dim(bias, shape=[1, input.size(-1)], broadcast_dims=[1])
    T1 = fd.ops.add(input, bias)
    T2 = fd.ops.mul(T1, S_079)
    T3 = fd.ops.mul(fd.ops.mul(T1, S_004), T1)
    T4 = fd.ops.mul(T2, fd.ops.add(V1, T3))
    T5 = fd.ops.tanh(T4)
    T6 = fd.ops.mul(fd.ops.mul(T1, V_half), fd.ops.add(T5, V1))
    if dtype is not DataType.Float:
        T6 = fd.ops.cast(T6, dtype=dtype)
    fd.add_output(T6)


with FusionDefinition() as fd:
    gelu_fwd_fusion(fd, DataType.Half)

inputs = [
    torch.randn(64, 60, device="cuda", dtype=torch.float16),
    torch.ones(60, device="cuda", dtype=torch.float16),
]
fd.execute(inputs)
