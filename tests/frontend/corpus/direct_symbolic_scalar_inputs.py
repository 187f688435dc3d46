# Style A (nvfuser_direct repro as printed): value-less scalar inputs
# c2 = fd.define_scalar(None, dtype=DataType.Double) and an Int one, given as
# plain Python numbers in the inputs block after the tensors.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    tv1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    c2 = fd.define_scalar(None, dtype=DataType.Double)
    c3 = fd.define_scalar(None, dtype=DataType.Int)
    tv4 = fd.ops.cast(tv0, dtype=DataType.Float)
    tv5 = fd.ops.cast(tv1, dtype=DataType.Float)
    tv6 = fd.ops.mul(tv5, c2)
    tv7 = fd.ops.add(tv4, tv6)
    c8 = fd.ops.cast(c3, dtype=DataType.Double)
    tv9 = fd.ops.div(tv7, c8)
    tv10 = fd.ops.cast(tv9, dtype=DataType.BFloat16)
    fd.add_output(tv10)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((40, 72), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((40, 72), dtype=torch.bfloat16, device='cuda:0'),
    0.125,
    3,
]
fd.execute(inputs)
