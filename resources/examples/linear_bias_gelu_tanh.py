# GPT MLP up-projection with bias and the tanh-approximate GELU, cast back to bf16:
# linear of bf16 x [2, 128, 1024] with W [4096, 1024] and b [4096].
# Exercises: the cuBLASLt GELU_BIAS epilogue; the whole fusion is one library call
# writing bf16 (no bf16 -> float -> bf16 round trip), launch count 1.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T3 = fd.ops.linear(T0, T1, T2)
    T4 = fd.ops.cast(T3, dtype=DataType.Float)
    T5 = fd.ops.mul(T4, T4)
    T6 = fd.ops.mul(T5, T4)
    S7 = fd.define_scalar(0.0447150, dtype=DataType.Double)
    T8 = fd.ops.mul(S7, T6)
    T9 = fd.ops.add(T4, T8)
    S10 = fd.define_scalar(0.797885, dtype=DataType.Double)
    T11 = fd.ops.mul(S10, T9)
    T12 = fd.ops.tanh(T11)
    S13 = fd.define_scalar(0.500000, dtype=DataType.Double)
    T14 = fd.ops.mul(S13, T4)
    S15 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T16 = fd.ops.add(S15, T12)
    T17 = fd.ops.mul(T14, T16)
    T18 = fd.ops.cast(T17, dtype=DataType.BFloat16)
    fd.add_output(T18)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(262144, dtype=torch.bfloat16, device='cuda:0').as_strided((2, 128, 1024), (131072, 1024, 1)),
    torch.randn(4194304, dtype=torch.bfloat16, device='cuda:0').as_strided((4096, 1024), (1024, 1)),
    torch.randn(4096, dtype=torch.bfloat16, device='cuda:0').as_strided((4096,), (1,)),
]
fd.execute(inputs)
