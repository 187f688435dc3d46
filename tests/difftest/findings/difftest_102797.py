# fuserlab-difftest --mode compile --seed 102797 --count 1
# unavailable before its fix: the compiler accepted a segment that code generation refused, or refused the fusion
# A random fusion of FuserLab's differential tester, seed 102797.
# Compile options: --set graph_launch=off
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randint(-9, 10, (1025, 255, 1), dtype=torch.int32, device="cuda"),
    torch.randn((2, 513), dtype=torch.float32, device="cuda"),
    torch.rand((32,), dtype=torch.float32, device="cuda"),
    torch.rand((2, 1026), dtype=torch.float32, device="cuda")[:, ::2],
    torch.randn((2, 1026), dtype=torch.float32, device="cuda")[:, ::2],
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    T2 = fd.from_pytorch(inputs[2])
    T3 = fd.ops.tanh(T2)
    T4 = fd.ops.abs(T1)
    T5 = fd.from_pytorch(inputs[3])
    T6 = fd.ops.where(fd.ops.gt(T1, 0.0), T1, T5)
    T7 = fd.ops.cast(T6, dtype=DataType.Int32)
    T8 = fd.from_pytorch(inputs[4])
    T9 = fd.ops.sub(T6, T8)
    T10 = fd.ops.sum(T0, dims=[2], keepdim=True)
    T11 = fd.ops.max(T10, dims=[2], keepdim=True)
    T12 = fd.ops.bitwise_not(T11)
    T13 = fd.ops.minimum(T12, -3)
    T14 = fd.ops.permute(T13, dims=[0, 2, 1])
    fd.add_output(T14)

fd.execute(inputs)
