# fuserlab-difftest --mode gpu --seed 104387 --count 1 --max-ops 14 (shrunk along 4.4.3.4.4)
# wrong_result: output 0: 9675 of 16384 elements differ (exact); worst at [0, 4]: 81 (result) vs 72 (reference)
# Compile options: --set dependent_launch=off --set graph_launch=off
# A random fusion of FuserLab's differential tester, seed 104387.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randint(-9, 10, (128, 16, 256), dtype=torch.int32, device="cuda")[:, :, ::2],
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.ops.max(T0, dims=[1], keepdim=False)
    T2 = fd.ops.permute(T1, dims=[1, 0])
    T3 = fd.ops.mul(T2, T1)
    fd.add_output(T3)

fd.execute(inputs)
