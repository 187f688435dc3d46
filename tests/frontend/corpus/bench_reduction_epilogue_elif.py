# Style C (benchmark builder): reduction_epilogue_fusion(fd, dtype,
# reduction_axis) - a sum along one axis plus a bias epilogue; the bias length
# and its broadcast dim come from an if/elif/else on the axis. Float [36, 52].
import torch
from nvfuser_direct import FusionDefinition, DataType


def reduction_epilogue_fusion(fd: FusionDefinition, dtype: DataType, reduction_axis: int) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=dtype, is_cpu=False)
    if dtype == DataType.Float:
        acc_dtype = None
    elif dtype in (DataType.BFloat16, DataType.Half):
        acc_dtype = DataType.Float
    else:
        raise ValueError("unsupported dtype")
    if acc_dtype is not None:
        T0 = fd.ops.cast(T0, dtype=acc_dtype)
        T1 = fd.ops.cast(T1, dtype=acc_dtype)
    T2 = fd.ops.sum(T0, dims=[reduction_axis], keepdim=False)
    T3 = fd.ops.add(T2, T1)
    T4 = fd.ops.mul(T3, 0.5)
    if acc_dtype is not None:
        T4 = fd.ops.cast(T4, dtype=dtype)
    fd.add_output(T4)


reduction_axis = 0
with FusionDefinition() as fd:
    reduction_epilogue_fusion(fd, DataType.Float, reduction_axis)

rows, cols = 36, 52
bias_len = cols if reduction_axis == 0 else rows
inputs = [
    torch.randn(rows, cols, device="cuda", dtype=torch.float32),
    torch.randn(bias_len, device="cuda", dtype=torch.float32),
]
fd.execute(inputs)
