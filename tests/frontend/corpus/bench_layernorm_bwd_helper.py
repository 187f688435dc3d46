# Style C (benchmark builder): layernorm_bwd_fusion with a helper function
# _to_float(fd, t, dtype) defined beside it, saved mean/invstd inputs of shape
# [-1] broadcast to rows, reductions for the grads. Float32 [40, 64].
import torch
from nvfuser_direct import FusionDefinition, DataType

PROMOTE_DTYPES = [DataType.BFloat16, DataType.Half]


def _to_float(fd, t, dtype):
    return fd.ops.cast(t, dtype=DataType.Float) if dtype in PROMOTE_DTYPES else t


def layernorm_bwd_fusion(fd: FusionDefinition, dtype: DataType) -> None:
    T0 = _to_float(fd, fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False), dtype)
    T1 = _to_float(fd, fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False), dtype)
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T4 = _to_float(fd, fd.define_tensor(shape=[-1], contiguity=[True], dtype=dtype, is_cpu=False), dtype)
    shape = T0.shape()
    mean = fd.ops.broadcast_in_dim(T2, shape=shape, broadcast_dims=[0])
    invstd = fd.ops.broadcast_in_dim(T3, shape=shape, broadcast_dims=[0])
    xhat = fd.ops.mul(fd.ops.sub(T0, mean), invstd)
    gw = fd.ops.mul(T1, fd.ops.broadcast_in_dim(T4, shape=shape, broadcast_dims=[1]))
    S5 = fd.ops.reciprocal(T0.size(1))
    a = fd.ops.broadcast_in_dim(fd.ops.sum(gw, dims=[1]), shape=shape, broadcast_dims=[0])
    b = fd.ops.broadcast_in_dim(fd.ops.sum(fd.ops.mul(gw, xhat), dims=[1]), shape=shape, broadcast_dims=[0])
    inner = fd.ops.sub(fd.ops.sub(gw, fd.ops.mul(a, S5)), fd.ops.mul(xhat, fd.ops.mul(b, S5)))
    grad_in = fd.ops.mul(inner, invstd)
    grad_w = fd.ops.sum(fd.ops.mul(T1, xhat), dims=[0])
    grad_b = fd.ops.sum(T1, dims=[0])
    for out in (grad_in, grad_w, grad_b):
        fd.add_output(fd.ops.cast(out, dtype=dtype) if dtype in PROMOTE_DTYPES else out)


with FusionDefinition() as fd:
    layernorm_bwd_fusion(fd, DataType.Float)

x = torch.randn(40, 64, device="cuda")
mean = torch.randn(40, device="cuda")
invstd = torch.rand(40, device="cuda")
inputs = [x, torch.randn(40, 64, device="cuda"), mean, invstd, torch.randn(64, device="cuda")]
fd.execute(inputs)
