# Style A (nvfuser_direct repro as printed): linear(tv0, tv1, bias=tv2) on a
# 3-D bf16 activation [2, 6, 64] with weight [48, 64], then SiLU computed in
# Float and cast back. Exercises the bias= keyword of linear.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False)
    tv1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    tv2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
    tv3 = fd.ops.linear(tv0, tv1, bias=tv2)
    tv4 = fd.ops.cast(tv3, dtype=DataType.Float)
    tv5 = fd.ops.neg(tv4)
    tv6 = fd.ops.exp(tv5)
    tv7 = fd.ops.add(1.00000, tv6)
    tv8 = fd.ops.reciprocal(tv7)
    tv9 = fd.ops.mul(tv4, tv8)
    tv10 = fd.ops.cast(tv9, dtype=DataType.BFloat16)
    fd.add_output(tv10)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((2, 6, 64), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((48, 64), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((48,), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
