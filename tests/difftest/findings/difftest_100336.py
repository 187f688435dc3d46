# fuserlab-difftest --mode gpu --seed 100336 --count 1
# unavailable before its fix: an output from an iota in a reduction segment that does not vary along every reduced axis (code generation: varies along the reduced axes but does not span them)
# A random fusion of FuserLab's differential tester, seed 100336.
# Compile options: --set dependent_launch=off
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn((1, 31, 8), dtype=torch.float64, device="cuda"),
    torch.rand((), dtype=torch.float64, device="cuda"),
    torch.randn((1,), dtype=torch.float64, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.ops.full(shape=[31], fill_value=1.5, dtype=DataType.Float)
    T1 = fd.ops.iota(31, 0, 1, dtype=DataType.Int)
    T2 = fd.ops.neg(T1)
    T3 = fd.ops.cast(T2, dtype=DataType.BFloat16)
    T4 = fd.ops.cast(T3, dtype=DataType.Float)
    T5 = fd.ops.log(fd.ops.add(fd.ops.abs(T4), 1.0))
    T6 = fd.ops.broadcast_in_dim(T5, shape=[1, 31, 8], broadcast_dims=[1])
    T7 = fd.ops.sigmoid(T6)
    T8 = fd.ops.cast(T7, dtype=DataType.Double)
    T9 = fd.from_pytorch(inputs[0])
    T10 = fd.ops.sub(T8, T9)
    T11 = fd.from_pytorch(inputs[1])
    T12 = fd.ops.add(T10, T11)
    T13 = fd.ops.sum(T12, dims=[0, 2], keepdim=True)
    T14 = fd.from_pytorch(inputs[2])
    T15 = fd.ops.broadcast_in_dim(T14, shape=[1, 31, 1], broadcast_dims=[0])
    T16 = fd.ops.mul(T13, T15)
    fd.add_output(T16)
    fd.add_output(T3)
    fd.add_output(T10)

fd.execute(inputs)
