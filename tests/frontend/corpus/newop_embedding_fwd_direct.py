# Style G (new op: embedding_fwd), nvfuser_direct repro names: a plain lookup
# fd.ops.embedding_fwd(tv0, tv1) of Int ids [3, 7] into a bf16 table
# [50, 24] (the printer omits the None options), then a scale.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False)
    tv1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    tv2 = fd.ops.embedding_fwd(tv0, tv1)
    tv3 = fd.ops.cast(tv2, dtype=DataType.Float)
    tv4 = fd.ops.mul(tv3, 4.89898)
    tv5 = fd.ops.cast(tv4, dtype=DataType.BFloat16)
    fd.add_output(tv5)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.randint(0, 50, (21,), dtype=torch.int64, device='cuda:0').as_strided((3, 7), (7, 1)),
    torch.testing.make_tensor((50, 24), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
