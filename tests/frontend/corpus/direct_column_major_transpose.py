# Style A (nvfuser_direct repro as printed): a column-major Float input
# (stride_order=[0, 1], built with randn(...).as_strided) added to the
# transpose of a row-major one. Exercises permute(dims=[1, 0]) and stride_order.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[0, 1])
    tv1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    tv2 = fd.ops.permute(tv1, dims=[1, 0])
    tv3 = fd.ops.add(tv0, tv2)
    tv4 = fd.ops.mul(tv3, 0.250000)
    fd.add_output(tv4)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.randn(720, dtype=torch.float32, device='cuda:0').as_strided((36, 20), (1, 36)),
    torch.testing.make_tensor((20, 36), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
