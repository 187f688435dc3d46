# Style A (nvfuser_direct repro as printed): int64 tensors of 2 elements: lt/where/add of scalars, a cat
# of a tensor with that result, then a cat of those cats, two outputs.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[2], contiguity=[True], dtype=DataType.Int, is_cpu=False)
    tv1 = fd.define_tensor(shape=[2], contiguity=[True], dtype=DataType.Int, is_cpu=False)
    tv2 = fd.ops.lt(tv0, 5)
    tv3 = fd.ops.where(tv2, tv0, 7)
    tv4 = fd.ops.add(tv3, 3)
    tv5 = fd.ops.cat([tv1, tv4], dim=0, manual_padding=False)
    tv6 = fd.ops.cat([tv4, tv1], dim=0, manual_padding=False)
    tv7 = fd.ops.cat([tv5, tv6], dim=0, manual_padding=False)
    fd.add_output(tv5)
    fd.add_output(tv7)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)
inputs = [
    torch.randint(0, 10, (2,), dtype=torch.int64, device='cuda:0'),
    torch.randint(0, 10, (2,), dtype=torch.int64, device='cuda:0'),
]
fd.execute(inputs)
