# Style F (0-dim tensor input): a 0-dim Float tensor
# fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float) multiplied
# elementwise with a 3-D bf16 tensor [3, 8, 20]; the 0-dim input is a CUDA tensor.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False)
    tv1 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, is_cpu=False)
    tv2 = fd.ops.cast(tv0, dtype=DataType.Float)
    tv3 = fd.ops.mul(tv2, tv1)
    tv4 = fd.ops.cast(tv3, dtype=DataType.BFloat16)
    fd.add_output(tv4)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((3, 8, 20), dtype=torch.bfloat16, device='cuda:0'),
    torch.randn((), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
