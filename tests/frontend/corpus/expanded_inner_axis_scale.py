# Style F (expanded inputs): expanded along the inner axis - contiguity
# [True, None], strides (1, 0) from torch.randn(10, 1).expand(10, 12) - a
# per-row scale multiplied into a Half [10, 12] matrix.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False)
    tv1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, None], dtype=DataType.Half, is_cpu=False)
    tv2 = fd.ops.cast(tv0, dtype=DataType.Float)
    tv3 = fd.ops.cast(tv1, dtype=DataType.Float)
    tv4 = fd.ops.mul(tv2, tv3)
    tv5 = fd.ops.cast(tv4, dtype=DataType.Half)
    fd.add_output(tv5)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((10, 12), dtype=torch.float16, device='cuda:0'),
    torch.randn(10, 1, dtype=torch.float16, device='cuda:0').expand(10, 12),
]
fd.execute(inputs)
