# Style B (old nvfuser flat trace) with the `from nvfuser import *` header:
# split [2, 32, 48] into 4 heads with define_vector shapes, permute to
# [2, 4, 32, 12], scale, and cast to Half.
import torch
from nvfuser import *

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[2, 1, 0])
    S1 = fd.define_scalar(2, dtype=DataType.Int)
    S2 = fd.define_scalar(32, dtype=DataType.Int)
    S3 = fd.define_scalar(4, dtype=DataType.Int)
    S4 = fd.define_scalar(12, dtype=DataType.Int)
    V5 = fd.define_vector([S1, S2, S3, S4], dtype=DataType.Int)
    T6 = fd.ops.reshape(T0, new_shape=V5)
    T7 = fd.ops.permute(T6, dims=[0, 2, 1, 3])
    S8 = fd.define_scalar(0.288675, dtype=DataType.Double)
    T9 = fd.ops.mul(T7, S8)
    T10 = fd.ops.cast(T9, dtype=DataType.Half)
    fd.add_output(T10)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(3072, dtype=torch.float32, device='cuda:0').as_strided((2, 32, 48), (1536, 48, 1)),
]
fd.execute(inputs)
