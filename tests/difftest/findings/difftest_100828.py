# fuserlab-difftest --mode compile --seed 100828 --count 1
# unavailable before its fix: the compiler accepted a segment that code generation refused, or refused the fusion
# A random fusion of FuserLab's differential tester, seed 100828.
# Compile options: --set bookend=inputs_and_outputs --set dependent_launch=off
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.rand((32, 7, 32, 1), dtype=torch.bfloat16, device="cuda").expand(32, 7, 32, 32),
    torch.rand((5, 64, 1), dtype=torch.float32, device="cuda"),
    torch.randint(0, 1, (5, 64, 5), dtype=torch.int64, device="cuda"),
    torch.randn((5, 64, 1), dtype=torch.float32, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    T2 = fd.from_pytorch(inputs[2])
    T3 = fd.ops.take_along_axis(T1, T2, dim=2)
    T4 = fd.ops.neg(T3)
    T5 = fd.from_pytorch(inputs[3])
    T6 = fd.ops.broadcast_in_dim(T5, shape=[5, 64, 1], broadcast_dims=[0, 1, 2])
    T7 = fd.ops.add(fd.ops.mul(T1, 0.5), T6)
    fd.add_output(T4)
    fd.add_output(T3)
    fd.add_output(T7, alias_input=T1)

fd.execute(inputs)
