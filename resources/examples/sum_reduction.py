# Inner (last-dim) reductions of one fp32 [2048, 1023] tensor: a row sum and a
# row L2 norm (sqrt of the sum of squares), two reductions sharing one input.
# Exercises: the reduction scheduler on an odd inner extent (1023: vectorization
# and unroll tails), horizontal fusion of sibling reductions.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.ops.sum(T0, dims=[1], keepdim=False, dtype=DataType.Null)
    T2 = fd.ops.mul(T0, T0)
    T3 = fd.ops.sum(T2, dims=[1], keepdim=False, dtype=DataType.Null)
    T4 = fd.ops.sqrt(T3)
    fd.add_output(T1)
    fd.add_output(T4)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(2095104, dtype=torch.float32, device='cuda:0').as_strided((2048, 1023), (1023, 1)),
]
fd.execute(inputs)
