# fuserlab-difftest --mode compile --seed 102143 --count 1
# unavailable before its fix: the compiler accepted a segment that code generation refused, or refused the fusion
# A random fusion of FuserLab's differential tester, seed 102143.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn((128, 4, 3, 128), dtype=torch.float16, device="cuda"),
    torch.randn((1,), dtype=torch.float16, device="cuda"),
    torch.rand((), dtype=torch.float32, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.ops.reshape(T0, new_shape=[196608])
    T2 = fd.from_pytorch(inputs[1])
    T3 = fd.ops.cat([T1, T2], dim=0)
    T4 = fd.ops.cast(T2, dtype=DataType.Float)
    T5 = fd.from_pytorch(inputs[2])
    T6 = fd.ops.minimum(T4, T5)
    T7 = fd.ops.max(T1, dims=[0], keepdim=False)
    T8 = fd.ops.lt(T2, 0.0)
    T9 = fd.ops.cast(T8, dtype=DataType.Int32)
    T10 = fd.ops.min(T9, dims=[0], keepdim=True)
    T11 = fd.ops.min(T10, dims=[0], keepdim=True)
    fd.add_output(T11)
    fd.add_output(T7)

fd.execute(inputs)
