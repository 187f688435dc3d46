# fuserlab-difftest --mode compile --seed 100731 --count 1
# unavailable before its fix: the compiler accepted a segment that code generation refused, or refused the fusion
# A random fusion of FuserLab's differential tester, seed 100731.
# Compile options: --set upcast=forward --set bookend=none --set graph_launch=off
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randint(-9, 10, (8,), dtype=torch.int32, device="cuda"),
    torch.randint(-9, 10, (6,), dtype=torch.int32, device="cuda")[::2],
    torch.randn((8, 32, 33, 31), dtype=torch.bfloat16, device="cuda"),
    torch.randn((17, 31), dtype=torch.bfloat16, device="cuda"),
    torch.randint(0, 2, (8, 4, 17, 31), dtype=torch.bool, device="cuda"),
    torch.randint(0, 2, (8, 4, 17, 32), dtype=torch.bool, device="cuda")[:, :, :, 1:],
    torch.randint(0, 16864, (1,), dtype=torch.int64, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    T2 = fd.from_pytorch(inputs[2])
    T3 = fd.ops.slice(T2, start_indices=[0, 0, 0, 0], end_indices=[8, 32, 33, 31])
    T4 = fd.ops.slice(T3, start_indices=[0, 16, 16, 0], end_indices=[8, 20, 33, 31])
    T5 = fd.from_pytorch(inputs[3])
    T6 = fd.ops.broadcast_in_dim(T5, shape=[8, 4, 17, 31], broadcast_dims=[2, 3])
    T7 = fd.ops.ge(T4, T6)
    T8 = fd.from_pytorch(inputs[4])
    T9 = fd.ops.logical_and(T7, T8)
    T10 = fd.from_pytorch(inputs[5])
    T11 = fd.ops.bitwise_xor(T9, T10)
    T12 = fd.ops.logical_not(T11)
    T13 = fd.ops.reshape(T12, new_shape=[16864])
    T14 = fd.from_pytorch(inputs[6])
    T15 = fd.ops.index_select(T13, T14, dim=0)
    T16 = fd.ops.broadcast_in_dim(T15, shape=[1, 1, 128], broadcast_dims=[1])
    fd.add_output(T16)
    fd.add_output(T3)

fd.execute(inputs)
