# Style A (nvfuser_direct repro as printed): drop the last 6 columns of a
# Float [12, 40] tensor with slice(..., manual_normalization=True) and pad them
# back with pad(pad_widths=[0, 6, 0, 0], value=-1.00000); also a strided slice.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    tv1 = fd.ops.slice(tv0, start_indices=[0, 0], end_indices=[12, 34], strides=[1, 1], manual_normalization=True)
    tv2 = fd.ops.pad(tv1, pad_widths=[0, 6, 0, 0], value=-1.00000)
    tv3 = fd.ops.slice(tv0, start_indices=[0, 1], end_indices=[12, 40], strides=[2, 3], manual_normalization=True)
    tv4 = fd.ops.abs(tv3)
    fd.add_output(tv2)
    fd.add_output(tv4)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((12, 40), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
