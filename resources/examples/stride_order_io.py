# Non-contiguous and permuted-layout I/O: a column-major bf16 input (stride_order
# [0, 1]), a row-strided slice view (contiguity [False, True]), an NCHW tensor in
# channels-last layout; outputs pinned with add_output(stride_order=) and the
# stride_order op. Exercises: allocation-domain handling on inputs and outputs.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0, 1])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[False, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[3, 0, 2, 1])
    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4 = fd.ops.cast(T1, dtype=DataType.Float)
    T5 = fd.ops.add(T3, T4)
    T6 = fd.ops.cast(T5, dtype=DataType.BFloat16)
    T7 = fd.ops.relu(T2)
    S8 = fd.define_scalar(2.00000, dtype=DataType.Double)
    T9 = fd.ops.mul(T7, S8)
    T10 = fd.ops.stride_order(T9, stride_order=[3, 0, 2, 1])
    fd.add_output(T6, stride_order=[0, 1])
    fd.add_output(T10)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(786432, dtype=torch.bfloat16, device='cuda:0').as_strided((1024, 768), (1, 1024)),
    torch.randn(1572864, dtype=torch.bfloat16, device='cuda:0').as_strided((1024, 768), (1536, 1)),
    torch.randn(1605632, dtype=torch.float32, device='cuda:0').as_strided((8, 64, 56, 56), (200704, 1, 3584, 64)),
]
fd.execute(inputs)
