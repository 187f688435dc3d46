# Style B (old nvfuser flat trace): fd.ops.linear(T0, T1, T2) with the bias
# passed positionally, as older Thunder traces write it, then a residual add
# in Float. bf16 activation [4, 10, 32], weight [32, 32], bias [32].
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id12(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T3 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    T4 = fd.ops.linear(T0, T1, T2)
    T5 = fd.ops.cast(T4, dtype=DataType.Float)
    T6 = fd.ops.cast(T3, dtype=DataType.Float)
    T7 = fd.ops.add(T5, T6)
    T8 = fd.ops.cast(T7, dtype=DataType.BFloat16)
    fd.add_output(T8)

with FusionDefinition() as fd:
    nvfuser_fusion_id12(fd)

inputs = [
    torch.testing.make_tensor((4, 10, 32), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((32, 32), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((32,), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((4, 10, 32), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
