# fuserlab-difftest --mode compile --seed 100125 --count 1
# unavailable before its fix: the compiler accepted a segment that code generation refused, or refused the fusion
# A random fusion of FuserLab's differential tester, seed 100125.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.rand((8, 128), dtype=torch.float16, device="cuda"),
    torch.randn((2, 2, 32), dtype=torch.float32, device="cuda"),
    torch.rand((16, 31, 16, 33), dtype=torch.bfloat16, device="cuda")[:, :, :, 1:],
    torch.randn((8, 256), dtype=torch.float32, device="cuda")[:, ::2],
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    T2 = fd.from_pytorch(inputs[2])
    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4 = fd.from_pytorch(inputs[3])
    T5 = fd.ops.mul(T3, T4)
    T6 = fd.ops.abs(T5)
    T7 = fd.ops.abs(T6)
    T8 = fd.ops.min(T3, dims=[1], keepdim=False)
    T9 = fd.ops.slice(T5, start_indices=[2, 17], end_indices=[4, 123], strides=[2, 1])
    T10 = fd.ops.max(T9, dims=[0], keepdim=False)
    T11 = fd.ops.max(T10, dims=[0], keepdim=False)
    fd.add_output(T11)
    fd.add_output(T7)
    fd.add_output(T9)

fd.execute(inputs)
