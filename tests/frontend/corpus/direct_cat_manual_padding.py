# Style A (nvfuser_direct repro as printed): concatenate a bf16 [8, 24] and a
# bf16 [8, 40] along the last dim, as the printer writes cat: a list of tensors
# then dim=1, manual_padding=True. Followed by a neg and a row max.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    tv1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    tv2 = fd.ops.pad(tv0, pad_widths=[0, 40, 0, 0])
    tv3 = fd.ops.pad(tv1, pad_widths=[24, 0, 0, 0])
    tv4 = fd.ops.cat([tv2, tv3], dim=1, manual_padding=True)
    tv5 = fd.ops.neg(tv4)
    tv6 = fd.ops.max(tv5, dims=[1])
    fd.add_output(tv4)
    fd.add_output(tv6)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((8, 24), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((8, 40), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
