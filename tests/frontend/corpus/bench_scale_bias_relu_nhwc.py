# Style C (benchmark builder): scale_bias_relu_fwd_fusion on a channels-last
# style [N, H, W, C] input with per-channel scale and bias; broadcast_dims
# computed from the rank (`[num_dims - 1]`), a Bool mask output from gt.
import torch
from nvfuser_direct import FusionDefinition, DataType


def scale_bias_relu_fwd_fusion(fd: FusionDefinition, dtype: DataType, num_dims: int = 4) -> None:
    T0 = fd.define_tensor(shape=[-1] * num_dims, contiguity=[True] * num_dims, dtype=dtype, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=dtype, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=dtype, is_cpu=False)
    channel_dim = num_dims - 1
    T3 = fd.ops.broadcast_in_dim(T1, shape=T0.shape(), broadcast_dims=[channel_dim])
    T4 = fd.ops.broadcast_in_dim(T2, shape=T0.shape(), broadcast_dims=[channel_dim])
    T5 = fd.ops.add(fd.ops.mul(T0, T3), T4)
    T6 = fd.ops.relu(T5)
    T7 = fd.ops.gt(T5, 0.0)
    fd.add_output(T6)
    fd.add_output(T7)


with FusionDefinition() as fd:
    scale_bias_relu_fwd_fusion(fd, DataType.BFloat16)

N, H, W, C = 2, 5, 5, 32
inputs = [
    torch.randn(N, H, W, C, device="cuda", dtype=torch.bfloat16),
    torch.ones(C, device="cuda", dtype=torch.bfloat16),
    torch.zeros(C, device="cuda", dtype=torch.bfloat16),
]
fd.execute(inputs)
