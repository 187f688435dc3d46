# The same MLP up-projection with the exact (erf) GELU and a single bf16 output.
# Exercises: cuBLASLt's GELU is the tanh form, so the erf GELU is not fused: the
# linear runs with the BIAS epilogue and the GELU in a following pointwise kernel
# (2 launches); the report's matmul_epilogue decisions say why.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T3 = fd.ops.linear(T0, T1, T2)
    T4 = fd.ops.cast(T3, dtype=DataType.Float)
    S5 = fd.define_scalar(0.707107, dtype=DataType.Double)
    T6 = fd.ops.mul(T4, S5)
    T7 = fd.ops.erf(T6)
    S8 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T9 = fd.ops.add(T7, S8)
    S10 = fd.define_scalar(0.500000, dtype=DataType.Double)
    T11 = fd.ops.mul(T4, S10)
    T12 = fd.ops.mul(T11, T9)
    T13 = fd.ops.cast(T12, dtype=DataType.BFloat16)
    fd.add_output(T13)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(262144, dtype=torch.bfloat16, device='cuda:0').as_strided((2, 128, 1024), (131072, 1024, 1)),
    torch.randn(4194304, dtype=torch.bfloat16, device='cuda:0').as_strided((4096, 1024), (1024, 1)),
    torch.randn(4096, dtype=torch.bfloat16, device='cuda:0').as_strided((4096,), (1,)),
]
fd.execute(inputs)
