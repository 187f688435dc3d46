# fuserlab-difftest --mode gpu --seed 104723 --count 1 --max-ops 14 (shrunk along 8.9.7)
# wrong_result: output 1: 64418 of 262144 elements differ (exact); worst at [0, 0, 1]: 1 (result) vs 0 (reference)
# Compile options: --set upcast=forward
# A random fusion of FuserLab's differential tester, seed 104723.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randint(0, 2, (64, 64, 64), dtype=torch.bool, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.ops.permute(T0, dims=[2, 1, 0])
    T2 = fd.ops.logical_and(T0, T1)
    T3 = fd.ops.cast(T2, dtype=DataType.Int32)
    T4 = fd.ops.max(T3, dims=[1], keepdim=False)
    fd.add_output(T4)
    fd.add_output(T2)

fd.execute(inputs)
