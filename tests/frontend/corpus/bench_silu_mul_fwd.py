# Style C (benchmark builder): silu_mul_fwd_fusion using fd.ops.silu directly,
# the builder called with the dtype given by keyword, and inputs built from a
# module-level size tuple and torch dtype.
import torch
from nvfuser_direct import FusionDefinition, DataType
from nvfuser_direct.pytorch_utils import torch_dtype_to_nvfuser_dtype

SIZE = (20, 112)
TORCH_DTYPE = torch.bfloat16


def silu_mul_fwd_fusion(fd: FusionDefinition, dtype: DataType):
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.silu(T2)
    T4 = fd.ops.cast(T1, dtype=DataType.Float)
    T5 = fd.ops.mul(T3, T4)
    T6 = fd.ops.cast(T5, dtype=dtype)
    fd.add_output(T6)


with FusionDefinition() as fd:
    silu_mul_fwd_fusion(fd, dtype=torch_dtype_to_nvfuser_dtype(TORCH_DTYPE))

inputs = [
    torch.randn(*SIZE, device="cuda", dtype=TORCH_DTYPE),
    torch.randn(*SIZE, device="cuda", dtype=TORCH_DTYPE),
]
fd.execute(inputs)
