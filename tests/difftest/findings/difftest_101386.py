# fuserlab-difftest --mode gpu --seed 101386 --count 1 --max-ops 14 (shrunk along 12.9.7)
# wrong_result: output 0: 2 of 2 elements differ (exact); worst at [0, 0]: 2.13906214e+09 (result) vs 1 (reference)
# Compile options: --set upcast=forward
# A random fusion of FuserLab's differential tester, seed 101386.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
]

with FusionDefinition() as fd:
    T0 = fd.ops.iota(33, 0, 1, dtype=DataType.Int)
    T1 = fd.ops.reshape(T0, new_shape=[11, 3])
    T2 = fd.ops.slice(T1, start_indices=[4, 0], end_indices=[5, 2])
    T3 = fd.ops.ge(T2, 1)
    T4 = fd.ops.cast(T3, dtype=DataType.Int32)
    fd.add_output(T4)
    fd.add_output(T0)

fd.execute(inputs)
