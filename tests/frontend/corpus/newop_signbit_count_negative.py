# Style G (new op: signbit), nvfuser_direct repro names: signbit of a bf16
# [24, 40] gives a Bool tensor, cast to Int and summed per row (count of
# negatives, -0.0 included), plus the Bool tensor itself as an output.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    tv1 = fd.ops.signbit(tv0)
    tv2 = fd.ops.cast(tv1, dtype=DataType.Int)
    tv3 = fd.ops.sum(tv2, dims=[1], dtype=DataType.Int)
    fd.add_output(tv1)
    fd.add_output(tv3)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((24, 40), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
