# Embedding lookup plus a per-row gather: index_select of 1024 token ids into a
# bf16 [4096, 768] table (scaled by sqrt(768)), and take_along_axis picking 8
# columns per row out of fp32 logits [256, 1000] with int64 indices [256, 8].
# Exercises: index-dependent reads, int64 index inputs from torch.randint.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False, stride_order=[0])
    T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T3 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False, stride_order=[1, 0])
    T4 = fd.ops.index_select(T0, T1, dim=0)
    T5 = fd.ops.cast(T4, dtype=DataType.Float)
    S6 = fd.define_scalar(27.7128, dtype=DataType.Double)
    T7 = fd.ops.mul(T5, S6)
    T8 = fd.ops.cast(T7, dtype=DataType.BFloat16)
    T9 = fd.ops.take_along_axis(T2, T3, dim=1)
    T10 = fd.ops.exp(T9)
    fd.add_output(T8)
    fd.add_output(T10)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(3145728, dtype=torch.bfloat16, device='cuda:0').as_strided((4096, 768), (768, 1)),
    torch.randint(0, 4096, (1024,), dtype=torch.int64, device='cuda:0'),
    torch.randn(256000, dtype=torch.float32, device='cuda:0').as_strided((256, 1000), (1000, 1)),
    torch.randint(0, 1000, (256, 8), dtype=torch.int64, device='cuda:0'),
]
fd.execute(inputs)
