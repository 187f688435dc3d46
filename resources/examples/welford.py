# Row statistics of an fp32 [1024, 2047] tensor two ways: fd.ops.welford (avg,
# var_sum, N) with var = var_sum / 2047, and var_mean (correction=0) on the same rows.
# Exercises: the three-output welford op (N unused), a sibling var_mean over the
# same input, an odd inner extent.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1, T2, T3 = fd.ops.welford(T0, dims=[1])
    S4 = fd.define_scalar(0.000488519785051295, dtype=DataType.Double)
    T5 = fd.ops.mul(T2, S4)
    T6, T7 = fd.ops.var_mean(T0, dims=[1], correction=0, keepdim=False)
    fd.add_output(T1)
    fd.add_output(T5)
    fd.add_output(T6)
    fd.add_output(T7)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(2096128, dtype=torch.float32, device='cuda:0').as_strided((1024, 2047), (2047, 1)),
]
fd.execute(inputs)
