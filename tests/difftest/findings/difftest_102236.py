# fuserlab-difftest --mode compile --seed 102236 --count 1
# unavailable before its fix: the compiler accepted a segment that code generation refused, or refused the fusion
# A random fusion of FuserLab's differential tester, seed 102236.
# Compile options: --set graph_launch=off
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn((1, 1, 510), dtype=torch.float32, device="cuda")[:, :, ::2],
    torch.randn((256, 1, 3), dtype=torch.float16, device="cuda"),
    torch.randint(0, 256, (5, 1, 3), dtype=torch.int64, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    T2 = fd.ops.cast(T1, dtype=DataType.Float)
    T3 = fd.ops.exp(fd.ops.tanh(T2))
    T4 = fd.ops.max(T3, dims=[1], keepdim=True)
    T5 = fd.ops.sum(T4, dims=[1], keepdim=True)
    T6 = fd.ops.relu(T5)
    T7 = fd.from_pytorch(inputs[2])
    T8 = fd.ops.take_along_axis(T6, T7, dim=0)
    T9 = fd.ops.cast(T3, dtype=DataType.Half)
    T10 = fd.ops.add(fd.ops.mul(T1, 0.5), T9)
    fd.add_output(T8)
    fd.add_output(T4)
    fd.add_output(T10, alias_input=T1)

fd.execute(inputs)
