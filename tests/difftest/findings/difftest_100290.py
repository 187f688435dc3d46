# fuserlab-difftest --mode compile --seed 100290 --count 1
# unavailable before its fix: the compiler accepted a segment that code generation refused, or refused the fusion
# A random fusion of FuserLab's differential tester, seed 100290.
# Compile options: --set upcast=forward
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randint(0, 2, (1, 31), dtype=torch.bool, device="cuda"),
    torch.rand((32, 33, 7, 32), dtype=torch.float32, device="cuda"),
    torch.rand((32, 7, 32), dtype=torch.float32, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    T2 = fd.ops.permute(T1, dims=[2, 3, 0, 1])
    T3 = fd.ops.permute(T2, dims=[0, 3, 2, 1])
    T4 = fd.ops.reshape(T3, new_shape=[7, 33, 1024])
    T5 = fd.ops.cast(T4, dtype=DataType.BFloat16)
    T6 = fd.from_pytorch(inputs[2])
    T7 = fd.ops.broadcast_in_dim(T6, shape=[32, 33, 7, 32], broadcast_dims=[0, 2, 3])
    T8 = fd.ops.where(fd.ops.gt(T1, 0.0), T1, T7)
    T9 = fd.ops.pad(T8, [0, 2], 0.0)
    fd.add_output(T9)
    fd.add_output(T4)

fd.execute(inputs)
