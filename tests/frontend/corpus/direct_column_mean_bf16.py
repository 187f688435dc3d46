# Style A (nvfuser_direct repro as printed): column mean of a bf16 [64, 48] tensor.
# Exercises an outer reduction sum(dims=[0], dtype=DataType.Float) on a bf16
# input, a multiply by an inlined reciprocal constant, and a bf16 output.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    tv1 = fd.ops.cast(tv0, dtype=DataType.Float)
    tv2 = fd.ops.sum(tv1, dims=[0], dtype=DataType.Float)
    tv3 = fd.ops.mul(tv2, 0.0156250)
    tv4 = fd.ops.cast(tv3, dtype=DataType.BFloat16)
    fd.add_output(tv4)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((64, 48), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
