# fuserlab-difftest --mode compile --seed 100852 --count 1
# unavailable before its fix: the compiler accepted a segment that code generation refused, or refused the fusion
# A random fusion of FuserLab's differential tester, seed 100852.
# Compile options: --set upcast=forward
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randint(0, 2, (255, 64), dtype=torch.bool, device="cuda")[:, ::2],
    torch.randint(0, 2, (255, 2), dtype=torch.bool, device="cuda")[:, ::2],
    torch.randint(0, 2, (255, 8, 1), dtype=torch.bool, device="cuda"),
    torch.randint(0, 2, (255, 2), dtype=torch.bool, device="cuda")[:, 1:],
    torch.randint(0, 2, (51, 5, 40, 1), dtype=torch.bool, device="cuda"),
    torch.randint(0, 2, (17, 40, 51, 1), dtype=torch.bool, device="cuda").permute(2, 0, 1, 3),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.ops.broadcast_in_dim(T0, shape=[255, 32, 1], broadcast_dims=[0, 1])
    T2 = fd.from_pytorch(inputs[1])
    T3 = fd.ops.broadcast_in_dim(T2, shape=[255, 32, 1], broadcast_dims=[0, 2])
    T4 = fd.ops.logical_or(T1, T3)
    T5 = fd.from_pytorch(inputs[2])
    T6 = fd.ops.cat([T4, T5], dim=1)
    T7 = fd.from_pytorch(inputs[3])
    T8 = fd.ops.broadcast_in_dim(T7, shape=[255, 40, 1], broadcast_dims=[0, 2])
    T9 = fd.ops.logical_and(T6, T8)
    T10 = fd.ops.reshape(T9, new_shape=[51, 5, 40, 1])
    T11 = fd.from_pytorch(inputs[4])
    T12 = fd.ops.bitwise_xor(T10, T11)
    T13 = fd.from_pytorch(inputs[5])
    T14 = fd.ops.cat([T12, T13], dim=1)
    T15 = fd.ops.cast(T14, dtype=DataType.Int32)
    T16 = fd.ops.min(T15, dims=[1, 2, 3], keepdim=True)
    T17 = fd.ops.cast(T16, dtype=DataType.Int)
    fd.add_output(T17)
    fd.add_output(T9)

fd.execute(inputs)
