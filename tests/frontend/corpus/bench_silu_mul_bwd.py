# Style C (benchmark builder): silu_mul_bwd_fusion producing the gradients for
# both inputs; sigmoid-based derivative, a module-level ONE constant and a
# helper `promote` returning a tuple unpacked by the caller. Half [32, 72].
import torch
from nvfuser_direct import FusionDefinition, DataType

ONE = 1.0


def promote(fd, dtype, *tensors):
    if dtype == DataType.Float:
        return tensors
    return tuple(fd.ops.cast(t, dtype=DataType.Float) for t in tensors)


def silu_mul_bwd_fusion(fd: FusionDefinition, dtype: DataType) -> None:
    grad = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    x = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    y = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    grad, x, y = promote(fd, dtype, grad, x, y)
    sig = fd.ops.sigmoid(x)
    silu = fd.ops.mul(x, sig)
    dsilu = fd.ops.mul(sig, fd.ops.add(ONE, fd.ops.mul(x, fd.ops.sub(ONE, sig))))
    grad_x = fd.ops.mul(fd.ops.mul(grad, y), dsilu)
    grad_y = fd.ops.mul(grad, silu)
    fd.add_output(fd.ops.cast(grad_x, dtype=dtype))
    fd.add_output(fd.ops.cast(grad_y, dtype=dtype))


with FusionDefinition() as fd:
    silu_mul_bwd_fusion(fd, DataType.Half)

inputs = [torch.randn(32, 72, device="cuda", dtype=torch.float16) for _ in range(3)]
fd.execute(inputs)
