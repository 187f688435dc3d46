# Style C (benchmark builder): softmax_fwd_fusion(fd, dtype, reduction_axis)
# with `bcast_dims = [False, False]` then `bcast_dims[reduction_axis] = True`,
# broadcast(is_broadcast_dim=bcast_dims); called with reduction_axis=0.
import torch
from nvfuser_direct import FusionDefinition, DataType

PROMOTE_DTYPES = [DataType.BFloat16, DataType.Half]


def softmax_fwd_fusion(fd: FusionDefinition, dtype: DataType, reduction_axis: int) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    if dtype in PROMOTE_DTYPES:
        T0 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.max(T0, dims=[reduction_axis], keepdim=False, dtype=DataType.Null)
    bcast_dims = [False, False]
    bcast_dims[reduction_axis] = True
    T7 = fd.ops.broadcast(T2, is_broadcast_dim=bcast_dims)
    T13 = fd.ops.sub(T0, T7)
    T14 = fd.ops.exp(T13)
    T15 = fd.ops.sum(T14, dims=[reduction_axis], keepdim=False, dtype=DataType.Null)
    T20 = fd.ops.broadcast(T15, is_broadcast_dim=bcast_dims)
    T26 = fd.ops.reciprocal(T20)
    T27 = fd.ops.mul(T14, T26)
    if dtype in PROMOTE_DTYPES:
        T27 = fd.ops.cast(T27, dtype=dtype)
    fd.add_output(T27)


with FusionDefinition() as fd:
    softmax_fwd_fusion(fd, DataType.Half, reduction_axis=0)

inputs = [torch.randn(72, 40, device="cuda", dtype=torch.float16)]
fd.execute(inputs)
