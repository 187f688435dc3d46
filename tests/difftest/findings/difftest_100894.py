# fuserlab-difftest --mode compile --seed 100894 --count 1
# unavailable before its fix: the compiler accepted a segment that code generation refused, or refused the fusion
# A random fusion of FuserLab's differential tester, seed 100894.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn((256, 4, 129), dtype=torch.float32, device="cuda").permute(0, 1, 2),
    torch.randn((32, 3, 31, 65), dtype=torch.float32, device="cuda")[:, :, :, 1:],
    torch.randint(0, 2, (4, 128), dtype=torch.bool, device="cuda")[:, ::2],
    torch.randint(0, 2, (64,), dtype=torch.bool, device="cuda"),
    torch.randint(0, 2, (8, 64), dtype=torch.bool, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    T2 = fd.from_pytorch(inputs[2])
    T3 = fd.ops.logical_not(T2)
    T4 = fd.from_pytorch(inputs[3])
    T5 = fd.ops.broadcast_in_dim(T4, shape=[4, 64], broadcast_dims=[1])
    T6 = fd.ops.logical_and(T3, T5)
    T7 = fd.ops.abs(T0)
    T8 = fd.ops.broadcast_in_dim(T7, shape=[256, 1, 4, 129], broadcast_dims=[0, 2, 3])
    T9 = fd.ops.max(T1, dims=[1, 2], keepdim=False)
    T10 = fd.ops.sum(T9, dims=[1], keepdim=True)
    T11 = fd.ops.reciprocal(fd.ops.add(fd.ops.abs(T10), 1.0))
    T12 = fd.ops.slice(T3, start_indices=[0, 0], end_indices=[3, 64], strides=[2, 1])
    T13 = fd.ops.slice(T12, start_indices=[1, 0], end_indices=[2, 64])
    T14 = fd.from_pytorch(inputs[4])
    T15 = fd.ops.cat([T13, T14], dim=0)
    fd.add_output(T15)
    fd.add_output(T6)

fd.execute(inputs)
