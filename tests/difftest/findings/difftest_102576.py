# fuserlab-difftest --mode gpu --seed 102576 --count 1 --max-ops 14 (shrunk along 18.14.12.11.9.8.7.7)
# wrong_result: output 0: 3968 of 257920 elements differ (exact); worst at [0, 64, 0]: 9.18720195e+18 (result) vs 9 (reference)
# Compile options: --set dependent_launch=off --set graph_launch=off
# A random fusion of FuserLab's differential tester, seed 102576.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randint(-9, 10, (64, 128, 31), dtype=torch.int64, device="cuda"),
    torch.randint(-9, 10, (128, 64, 2), dtype=torch.int64, device="cuda")[:, :, 1:],
    torch.randint(-9, 10, (128, 1, 31), dtype=torch.int64, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.ops.permute(T0, dims=[1, 0, 2])
    T2 = fd.from_pytorch(inputs[1])
    T3 = fd.ops.cat([T1, T2], dim=2)
    T4 = fd.ops.broadcast_in_dim(T3, shape=[128, 1, 64, 32], broadcast_dims=[0, 2, 3])
    T5 = fd.from_pytorch(inputs[2])
    T6 = fd.ops.cat([T1, T5], dim=1)
    T7 = fd.ops.permute(T4, dims=[0, 2, 1, 3])
    fd.add_output(T6)
    fd.add_output(T7)

fd.execute(inputs)
