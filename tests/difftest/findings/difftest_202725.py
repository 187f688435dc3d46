# fuserlab-difftest --mode gpu --seed 202725 --count 1
# unavailable before its fix: an output from an iota in a reduction segment that does not vary along every reduced axis (code generation: varies along the reduced axes but does not span them)
# A random fusion of FuserLab's differential tester, seed 202725.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
]

with FusionDefinition() as fd:
    T0 = fd.ops.full(shape=[128, 255], fill_value=-0.25, dtype=DataType.Float)
    T1 = fd.ops.iota(255, 0, 1, dtype=DataType.Int)
    T2 = fd.ops.broadcast_in_dim(T1, shape=[255, 1, 33], broadcast_dims=[0])
    T3 = fd.ops.sum(T2, dims=[0, 1], keepdim=True)
    T4 = fd.ops.permute(T2, dims=[1, 2, 0])
    T5 = fd.ops.cast(T4, dtype=DataType.Float)
    T6 = fd.ops.sin(fd.ops.tanh(T5))
    T7 = fd.ops.min(T6, dims=[0], keepdim=True)
    fd.add_output(T7)
    fd.add_output(T0)
    fd.add_output(T5)

fd.execute(inputs)
