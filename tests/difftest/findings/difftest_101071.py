# fuserlab-difftest --mode compile --seed 101071 --count 1
# unavailable before its fix: the compiler accepted a segment that code generation refused, or refused the fusion
# A random fusion of FuserLab's differential tester, seed 101071.
# Compile options: --set upcast=forward --set dependent_launch=off
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.rand((4097,), dtype=torch.float32, device="cuda"),
    torch.randint(-9, 10, (128,), dtype=torch.int64, device="cuda"),
    torch.randint(-9, 10, (128, 3, 64), dtype=torch.int64, device="cuda"),
    torch.rand((4097,), dtype=torch.float32, device="cuda"),
    torch.randint(0, 4097, (5,), dtype=torch.int64, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    T2 = fd.from_pytorch(inputs[2])
    T3 = fd.ops.add(0.5, T0)
    T4 = fd.from_pytorch(inputs[3])
    T5 = fd.ops.where(fd.ops.gt(T4, 0.0), T3, T4)
    T6 = fd.ops.cast(T4, dtype=DataType.BFloat16)
    T7 = fd.from_pytorch(inputs[4])
    T8 = fd.ops.gather(T6, T7, dim=0)
    T9 = fd.ops.cast(T8, dtype=DataType.Float)
    T10 = fd.ops.cast(T7, dtype=DataType.Float)
    T11 = fd.ops.mul(T9, T10)
    T12 = fd.ops.cast(T0, dtype=DataType.BFloat16)
    T13 = fd.ops.max(T8, dims=[0], keepdim=True)
    T14 = fd.ops.squeeze(T13, dims=[0])
    T15 = fd.ops.cast(T14, dtype=DataType.Float)
    T16 = fd.ops.reciprocal(fd.ops.add(fd.ops.abs(T15), 1.0))
    fd.add_output(T16)
    fd.add_output(T10)

fd.execute(inputs)
