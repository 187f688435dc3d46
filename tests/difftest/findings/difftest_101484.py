# fuserlab-difftest --mode compile --seed 101484 --count 1
# unavailable before its fix: the compiler accepted a segment that code generation refused, or refused the fusion
# A random fusion of FuserLab's differential tester, seed 101484.
# Compile options: --set upcast=forward
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn((32, 4), dtype=torch.float64, device="cuda"),
    torch.randint(-9, 10, (), dtype=torch.int32, device="cuda"),
    torch.randint(-9, 10, (256, 128), dtype=torch.int32, device="cuda"),
    torch.randint(0, 128, (33,), dtype=torch.int64, device="cuda"),
    torch.randn((256, 66), dtype=torch.float32, device="cuda")[:, ::2],
    torch.rand((256, 33), dtype=torch.float32, device="cuda"),
    torch.randn((256, 66), dtype=torch.float32, device="cuda")[:, ::2],
    torch.randn((2, 33), dtype=torch.float32, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    T2 = fd.from_pytorch(inputs[2])
    T3 = fd.ops.cast(T2, dtype=DataType.Float)
    T4 = fd.ops.sigmoid(T3)
    T5 = fd.from_pytorch(inputs[3])
    T6 = fd.ops.index_select(T4, T5, dim=1)
    T7 = fd.from_pytorch(inputs[4])
    T8 = fd.ops.mul(T6, T7)
    T9 = fd.from_pytorch(inputs[5])
    T10 = fd.from_pytorch(inputs[6])
    T11 = fd.ops.broadcast_in_dim(T10, shape=[256, 33], broadcast_dims=[0, 1])
    T12 = fd.ops.where(fd.ops.gt(T9, 0.0), T8, T11)
    T13 = fd.ops.broadcast_in_dim(T6, shape=[256, 1, 2, 33], broadcast_dims=[0, 3])
    T14 = fd.from_pytorch(inputs[7])
    T15 = fd.ops.broadcast_in_dim(T14, shape=[256, 1, 2, 33], broadcast_dims=[2, 3])
    T16 = fd.ops.div(T13, fd.ops.add(fd.ops.abs(T15), 1.0))
    T17 = fd.ops.tanh(T12)
    fd.add_output(T17)
    fd.add_output(T13)

fd.execute(inputs)
