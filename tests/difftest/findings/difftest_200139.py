# fuserlab-difftest --mode gpu --seed 200139 --count 1
# unavailable before its fix: an output from an iota in a reduction segment that does not vary along every reduced axis (code generation: varies along the reduced axes but does not span them)
# A random fusion of FuserLab's differential tester, seed 200139.
# Compile options: --set graph_launch=off
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randint(-9, 10, (1,), dtype=torch.int64, device="cuda"),
    torch.randint(-9, 10, (), dtype=torch.int32, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.ops.full(shape=[32, 31, 256, 1], fill_value=-0.25, dtype=DataType.Float)
    T1 = fd.ops.iota(1, 0, 1, dtype=DataType.Int)
    T2 = fd.ops.neg(T1)
    T3 = fd.from_pytorch(inputs[0])
    T4 = fd.ops.le(T2, T3)
    T5 = fd.ops.cast(T4, dtype=DataType.Int32)
    T6 = fd.ops.min(T5, dims=[0], keepdim=False)
    T7 = fd.from_pytorch(inputs[1])
    T8 = fd.ops.maximum(T6, T7)
    fd.add_output(T8)
    fd.add_output(T2)

fd.execute(inputs)
