# Style A (nvfuser_direct repro as printed): split a packed qkv [2, 16, 96]
# into heads. Exercises fd.ops.size(tv, dim=) scalars c2/c3 used inside
# reshape(new_shape=[c2, c3, 3, 2, 16]), permute, and slicing one head group.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Half, is_cpu=False)
    c2 = fd.ops.size(tv0, dim=0)
    c3 = fd.ops.size(tv0, dim=1)
    tv1 = fd.ops.reshape(tv0, new_shape=[c2, c3, 3, 2, 16])
    tv2 = fd.ops.permute(tv1, dims=[2, 0, 3, 1, 4])
    tv3 = fd.ops.slice(tv2, start_indices=[0, 0, 0, 0, 0], end_indices=[1, 2, 2, 16, 16], strides=[1, 1, 1, 1, 1], manual_normalization=True)
    tv4 = fd.ops.squeeze(tv3, dims=[0])
    tv5 = fd.ops.cast(tv4, dtype=DataType.Float)
    tv6 = fd.ops.mul(tv5, 0.250000)
    tv7 = fd.ops.cast(tv6, dtype=DataType.Half)
    fd.add_output(tv7)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((2, 16, 96), dtype=torch.float16, device='cuda:0'),
]
fd.execute(inputs)
