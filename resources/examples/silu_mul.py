# SwiGLU gate of a Llama MLP: silu(gate) * up on bf16 [256, 11008] tensors,
# computed in fp32 and cast back to bf16.
# Exercises: a two-input pointwise fusion with a wide, non-power-of-two inner
# extent (11008 = 86 * 128), the fd.ops.silu unary.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.silu(T2)
    T4 = fd.ops.cast(T1, dtype=DataType.Float)
    T5 = fd.ops.mul(T3, T4)
    T6 = fd.ops.cast(T5, dtype=DataType.BFloat16)
    fd.add_output(T6)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(2818048, dtype=torch.bfloat16, device='cuda:0').as_strided((256, 11008), (11008, 1)),
    torch.randn(2818048, dtype=torch.bfloat16, device='cuda:0').as_strided((256, 11008), (11008, 1)),
]
fd.execute(inputs)
