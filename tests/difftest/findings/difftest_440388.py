# fuserlab-difftest --mode compile --seed 440388 --count 1 --max-ops 14 (shrunk along 2.2)
# crash (SIGFPE) in the outer persistent heuristic: a segment that keeps no bytes (its tensor comes from full) got 0 blocks a column group, and the block shape divided by it. Fixed: at least one.
# A random fusion of FuserLab's differential tester, seed 440388.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
]

with FusionDefinition() as fd:
    T0 = fd.ops.full(shape=[16, 31, 16, 31], fill_value=1.5, dtype=DataType.Float)
    T1 = fd.ops.sub(T0, fd.ops.broadcast_in_dim(fd.ops.max(T0, dims=[0], keepdim=False), shape=[16, 31, 16, 31], broadcast_dims=[1, 2, 3]))
    fd.add_output(T1)

fd.execute(inputs)
