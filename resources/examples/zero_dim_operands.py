# A scaled residual with a learned 0-dim scale (a GPU tensor of shape []) and
# a clamp bound passed as a CPU scalar tensor (is_cpu=True), beside [2, 512,
# 1024] bf16 activations. Exercises: 0-dim tensor operands of binary, unary,
# where and lerp ops on either side; a CPU scalar as a by-value kernel
# parameter; 0-dim operands typed as scalars beside ranked tensors.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    T2 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    T3 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Double, is_cpu=True)
    T4 = fd.ops.cast(T1, dtype=DataType.Float)
    T5 = fd.ops.cast(T2, dtype=DataType.Float)
    T6 = fd.ops.mul(T0, T4)
    T7 = fd.ops.add(T6, T5)
    T8 = fd.ops.gt(T7, T3)
    T9 = fd.ops.where(T8, T3, T7)
    T10 = fd.ops.abs(T0)
    T11 = fd.ops.sigmoid(T10)
    T12 = fd.ops.lerp(T9, T5, T11)
    T13 = fd.ops.cast(T12, dtype=DataType.BFloat16)
    fd.add_output(T13)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn((), device='cuda:0'),
    torch.randn(2, 512, 1024, dtype=torch.bfloat16, device='cuda:0'),
    torch.randn(2, 512, 1024, dtype=torch.bfloat16, device='cuda:0'),
    torch.full((), 1.5, dtype=torch.float64),
]
fd.execute(inputs)
