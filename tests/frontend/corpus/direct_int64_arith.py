# Style A (nvfuser_direct repro as printed): integer arithmetic on Int tensors
# (torch.randint(...).as_strided inputs, as the printer writes non-contiguous
# int tensors): mul, remainder, bitwise_and, ge, cast to Float, sum.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False)
    tv1 = fd.define_tensor(shape=[-1, -1], contiguity=[False, True], dtype=DataType.Int, is_cpu=False)
    tv2 = fd.ops.mul(tv0, 3)
    tv3 = fd.ops.add(tv2, tv1)
    tv4 = fd.ops.remainder(tv3, 7)
    tv5 = fd.ops.bitwise_and(tv4, 6)
    tv6 = fd.ops.ge(tv5, 2)
    tv7 = fd.ops.cast(tv6, dtype=DataType.Float)
    tv8 = fd.ops.sum(tv7, dims=[1], dtype=DataType.Float)
    fd.add_output(tv5)
    fd.add_output(tv8)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.randint(0, 10, (18, 30), dtype=torch.int64, device='cuda:0'),
    torch.randint(0, 10, (1078,), dtype=torch.int64, device='cuda:0').as_strided((18, 30), (60, 1)),
]
fd.execute(inputs)
