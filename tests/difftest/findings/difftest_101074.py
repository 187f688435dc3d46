# fuserlab-difftest --mode compile --seed 101074 --count 1
# unavailable before its fix: the compiler accepted a segment that code generation refused, or refused the fusion
# A random fusion of FuserLab's differential tester, seed 101074.
# Compile options: --set upcast=forward --set dependent_launch=off
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn((64, 64, 64), dtype=torch.float64, device="cuda"),
    torch.randint(-9, 10, (128, 3, 64), dtype=torch.int64, device="cuda"),
    torch.rand((64, 64, 64), dtype=torch.float64, device="cuda"),
    torch.randint(0, 64, (128, 3, 2), dtype=torch.int64, device="cuda"),
    torch.randint(0, 64, (128, 3, 33), dtype=torch.int64, device="cuda"),
    torch.randn((128, 3, 34), dtype=torch.float32, device="cuda")[:, :, 1:],
    torch.randint(0, 64, (2, 64, 64), dtype=torch.int64, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    T2 = fd.ops.add(0.5, T0)
    T3 = fd.from_pytorch(inputs[2])
    T4 = fd.ops.where(fd.ops.gt(T3, 0.0), T2, T3)
    T5 = fd.ops.cast(T1, dtype=DataType.Float)
    T6 = fd.from_pytorch(inputs[3])
    T7 = fd.ops.take_along_axis(T5, T6, dim=2)
    T8 = fd.ops.cast(T6, dtype=DataType.Float)
    T9 = fd.ops.where(fd.ops.gt(T7, 0.0), T7, T8)
    T10 = fd.ops.reshape(T9, new_shape=[384, 2])
    T11 = fd.ops.abs(T5)
    T12 = fd.from_pytorch(inputs[4])
    T13 = fd.ops.gather(T11, T12, dim=2)
    T14 = fd.from_pytorch(inputs[5])
    T15 = fd.ops.broadcast_in_dim(T14, shape=[128, 3, 33], broadcast_dims=[0, 1, 2])
    T16 = fd.ops.maximum(T13, T15)
    T17 = fd.ops.ne(T16, 0.0)
    T18 = fd.from_pytorch(inputs[6])
    T19 = fd.ops.gather(T4, T18, dim=0)
    T20 = fd.ops.max(T19, dims=[0], keepdim=True)
    fd.add_output(T20)
    fd.add_output(T10)

fd.execute(inputs)
