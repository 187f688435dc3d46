# fuserlab-difftest --mode gpu --seed 108449 --count 1 --max-ops 14 (shrunk along 13.7.6.6)
# wrong_result: output 0: 210 of 2450 elements differ (exact); worst at [0, 32, 0, 0]: 9.18720195e+18 (result) vs 9 (reference)
# Compile options: --set bookend=inputs_and_outputs --set dependent_launch=off
# A random fusion of FuserLab's differential tester, seed 108449.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randint(0, 31, (7, 32, 2, 32), dtype=torch.int64, device="cuda"),
    torch.randint(-9, 10, (7, 32, 1, 32), dtype=torch.int64, device="cuda"),
    torch.randint(-9, 10, (7, 3, 1, 10), dtype=torch.int64, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    T2 = fd.ops.cat([T0, T1], dim=2)
    T3 = fd.ops.slice(T2, start_indices=[0, 0, 1, 14], end_indices=[7, 32, 2, 24])
    T4 = fd.from_pytorch(inputs[2])
    T5 = fd.ops.cat([T3, T4], dim=1)
    T6 = fd.ops.permute(T5, dims=[2, 1, 3, 0])
    fd.add_output(T6)
    fd.add_output(T2)

fd.execute(inputs)
