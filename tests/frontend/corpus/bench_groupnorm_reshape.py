# Style C (benchmark builder): group_norm_fwd_fusion(fd, dtype, num_groups) -
# reshape [N, C, H, W] -> [N, G, C // G, H, W] from integer parameters,
# var_mean over dims=[2, 3, 4], reshape back, per-channel affine. Float.
import torch
from nvfuser_direct import FusionDefinition, DataType


def group_norm_fwd_fusion(fd: FusionDefinition, dtype: DataType, N: int, C: int, H: int, W: int, num_groups: int, eps: float = 1e-5):
    x = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=dtype, is_cpu=False)
    w = fd.define_tensor(shape=[-1], contiguity=[True], dtype=dtype, is_cpu=False)
    b = fd.define_tensor(shape=[-1], contiguity=[True], dtype=dtype, is_cpu=False)
    grouped = [N, num_groups, C // num_groups, H, W]
    xg = fd.ops.reshape(x, new_shape=grouped)
    var, mean = fd.ops.var_mean(xg, dims=[2, 3, 4], correction=0, keepdim=False)
    bmean = fd.ops.broadcast_in_dim(mean, shape=grouped, broadcast_dims=[0, 1])
    brstd = fd.ops.broadcast_in_dim(fd.ops.rsqrt(fd.ops.add(var, eps)), shape=grouped, broadcast_dims=[0, 1])
    y = fd.ops.reshape(fd.ops.mul(fd.ops.sub(xg, bmean), brstd), new_shape=[N, C, H, W])
    y = fd.ops.mul(y, fd.ops.broadcast_in_dim(w, shape=[N, C, H, W], broadcast_dims=[1]))
    y = fd.ops.add(y, fd.ops.broadcast_in_dim(b, shape=[N, C, H, W], broadcast_dims=[1]))
    fd.add_output(y)


shape = dict(N=2, C=12, H=6, W=6)
with FusionDefinition() as fd:
    group_norm_fwd_fusion(fd, DataType.Float, shape["N"], shape["C"], shape["H"], shape["W"], num_groups=3)

inputs = [
    torch.randn(2, 12, 6, 6, device="cuda"),
    torch.randn(12, device="cuda"),
    torch.randn(12, device="cuda"),
]
fd.execute(inputs)
