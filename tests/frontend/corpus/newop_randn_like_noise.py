# Style G (new op: randn_like), nvfuser_direct repro names: Gaussian noise
# injection tv1 = fd.ops.randn_like(tv0) scaled by 0.0100000 and added to a
# bf16 [12, 64] activation computed in Float.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    tv1 = fd.ops.cast(tv0, dtype=DataType.Float)
    tv2 = fd.ops.randn_like(tv1)
    tv3 = fd.ops.mul(tv2, 0.0100000)
    tv4 = fd.ops.add(tv1, tv3)
    tv5 = fd.ops.cast(tv4, dtype=DataType.BFloat16)
    fd.add_output(tv5)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((12, 64), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
