# Style C (benchmark builder): gelu_bwd_reduction_fusion(fd, dtype,
# reduction_axis) - tanh-GELU backward followed by a sum over a chosen axis,
# with the output's shape depending on the parameter. Float [48, 32], axis 0.
import torch
from nvfuser_direct import FusionDefinition, DataType

PROMOTE_DTYPES = [DataType.BFloat16, DataType.Half]
K_ALPHA = 0.79788456
K_BETA = 0.044715


def gelu_bwd_reduction_fusion(fd: FusionDefinition, dtype: DataType, reduction_axis: int) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    if dtype in PROMOTE_DTYPES:
        T0 = fd.ops.cast(T0, dtype=DataType.Float)
        T1 = fd.ops.cast(T1, dtype=DataType.Float)
    inner = fd.ops.mul(fd.ops.add(T0, fd.ops.mul(fd.ops.mul(fd.ops.mul(T0, T0), T0), K_BETA)), K_ALPHA)
    t = fd.ops.tanh(inner)
    left = fd.ops.mul(fd.ops.add(t, 1.0), 0.5)
    dtanh = fd.ops.sub(1.0, fd.ops.mul(t, t))
    dinner = fd.ops.mul(fd.ops.add(1.0, fd.ops.mul(fd.ops.mul(T0, T0), 3.0 * K_BETA)), K_ALPHA)
    right = fd.ops.mul(fd.ops.mul(fd.ops.mul(T0, 0.5), dtanh), dinner)
    grad = fd.ops.mul(T1, fd.ops.add(left, right))
    red = fd.ops.sum(grad, dims=[reduction_axis], keepdim=False)
    if dtype in PROMOTE_DTYPES:
        grad = fd.ops.cast(grad, dtype=dtype)
        red = fd.ops.cast(red, dtype=dtype)
    fd.add_output(grad)
    fd.add_output(red)


with FusionDefinition() as fd:
    gelu_bwd_reduction_fusion(fd, DataType.Float, reduction_axis=0)

inputs = [
    torch.randn(48, 32, device="cuda", dtype=torch.float32),
    torch.randn(48, 32, device="cuda", dtype=torch.float32),
]
fd.execute(inputs)
