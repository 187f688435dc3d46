# Style G (new op: normal), nvfuser_direct: normal(mean, std, shape=[...],
# rng_seed=..., rng_offset=..., dtype=DataType.Half) with seed and offset
# given as value-less Int inputs and mean/std as constants; [18, 18] Half.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False)
    c1 = fd.define_scalar(None, dtype=DataType.Int)
    c2 = fd.define_scalar(None, dtype=DataType.Int)
    tv3 = fd.ops.normal(0.00000, 0.0200000, shape=[18, 18], rng_seed=c1, rng_offset=c2, dtype=DataType.Half)
    tv4 = fd.ops.add(tv0, tv3)
    fd.add_output(tv4)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((18, 18), dtype=torch.float16, device='cuda:0'),
    7,
    16,
]
fd.execute(inputs)
