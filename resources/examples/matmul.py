# Plain bf16 GEMM: A [1024, 2048] @ B [2048, 768] -> bf16 [1024, 768] via fd.ops.matmul.
# Exercises: a fusion that is a single matmul (ATen/matmul-scheduler segment),
# K-reduction shape checks, a CPU reference that needs fp32 accumulation.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.ops.matmul(T0, T1)
    fd.add_output(T2)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(2097152, dtype=torch.bfloat16, device='cuda:0').as_strided((1024, 2048), (2048, 1)),
    torch.randn(1572864, dtype=torch.bfloat16, device='cuda:0').as_strided((2048, 768), (768, 1)),
]
fd.execute(inputs)
