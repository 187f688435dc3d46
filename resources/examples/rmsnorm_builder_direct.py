# RMSNorm forward as nvFuser's benchmarks write it for nvfuser_direct: a
# builder taking the dtype and eps, upcasting only for half types, called
# from the with-block with its arguments. bf16 [256, 4096].
# Exercises: the Python around a definition (if on the dtype, a module-level
# list, defaults, keywords), nvfuser_direct's import, the rstd side output.
import torch
from nvfuser_direct import FusionDefinition, DataType
from nvfuser_direct.pytorch_utils import torch_dtype_to_nvfuser_dtype

PROMOTE_DTYPES = [DataType.BFloat16, DataType.Half]


def rmsnorm_fwd_fusion(fd: FusionDefinition, dtype: DataType, eps: float = 1e-5):
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=dtype, is_cpu=False)
    if dtype in PROMOTE_DTYPES:
        T0 = fd.ops.cast(T0, dtype=DataType.Float)
        T1 = fd.ops.cast(T1, dtype=DataType.Float)
    squared = fd.ops.mul(T0, T0)
    mean_sq = fd.ops.sum(squared, dims=[1], keepdim=True)
    mean_sq = fd.ops.div(mean_sq, T0.size(1))
    rstd = fd.ops.rsqrt(fd.ops.add(mean_sq, fd.define_scalar(eps, dtype=DataType.Double)))
    normed = fd.ops.mul(T0, rstd)
    weight = fd.ops.broadcast_in_dim(T1, shape=T0.shape(), broadcast_dims=[1])
    out = fd.ops.mul(normed, weight)
    if dtype in PROMOTE_DTYPES:
        out = fd.ops.cast(out, dtype=dtype)
    fd.add_output(out)
    fd.add_output(rstd)


dtype = torch.bfloat16
inputs = [
    torch.randn(256, 4096, device="cuda", dtype=dtype),
    torch.randn(4096, device="cuda", dtype=dtype),
]
with FusionDefinition() as fd:
    rmsnorm_fwd_fusion(fd, torch_dtype_to_nvfuser_dtype(dtype), eps=1e-6)
fd.execute(inputs)
