# fuserlab-difftest --mode gpu --seed 102241 --count 1
# unavailable before its fix: an output from an iota in a reduction segment that does not vary along every reduced axis (code generation: varies along the reduced axes but does not span them)
# A random fusion of FuserLab's differential tester, seed 102241.
# Compile options: --set graph_launch=off
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
]

with FusionDefinition() as fd:
    T0 = fd.ops.full(shape=[4097, 1], fill_value=-0.25, dtype=DataType.Float)
    T1 = fd.ops.iota(1, 0, 1, dtype=DataType.Int)
    T2 = fd.ops.min(T1, dims=[0], keepdim=True)
    fd.add_output(T2)
    fd.add_output(T0)
    fd.add_output(T1)

fd.execute(inputs)
