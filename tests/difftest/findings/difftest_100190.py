# fuserlab-difftest --mode gpu --seed 100190 --count 1 --max-ops 14 (shrunk along 9)
# wrong_result: output 0: 5 of 10 elements differ (rtol 0.001, atol 0.00100092383); worst at [9]: 0.907714844 (result) vs 0.230712891 (reference)
# A random fusion of FuserLab's differential tester, seed 100190.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.rand((64,), dtype=torch.float16, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.ops.slice(T0, start_indices=[20], end_indices=[39], strides=[2])
    T2 = fd.ops.cast(T1, dtype=DataType.Float)
    fd.add_output(T2)

fd.execute(inputs)
