# fuserlab-difftest --mode gpu --seed 201284 --count 1
# unavailable before its fix: an output from an iota in a reduction segment that does not vary along every reduced axis (code generation: varies along the reduced axes but does not span them)
# A random fusion of FuserLab's differential tester, seed 201284.
# Compile options: --set upcast=forward --set graph_launch=off
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn((1,), dtype=torch.float32, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.ops.full(shape=[1024, 128, 1], fill_value=1.5, dtype=DataType.Float)
    T1 = fd.ops.iota(1, 0, 1, dtype=DataType.Int)
    T2 = fd.ops.sum(T1, dims=[0], keepdim=True)
    T3 = fd.ops.cast(T2, dtype=DataType.Float)
    T4 = fd.ops.sin(fd.ops.tanh(T3))
    T5 = fd.ops.sqrt(fd.ops.abs(T4))
    T6 = fd.ops.reshape(T1, new_shape=[1])
    T7 = fd.ops.minimum(-3, T6)
    T8 = fd.ops.cast(T7, dtype=DataType.Float)
    T9 = fd.ops.sin(fd.ops.tanh(T8))
    T10 = fd.from_pytorch(inputs[0])
    T11 = fd.ops.where(fd.ops.gt(T10, 0.0), T4, T8)
    T12 = fd.ops.cos(fd.ops.tanh(T11))
    fd.add_output(T12)
    fd.add_output(T5)
    fd.add_output(T1)

fd.execute(inputs)
