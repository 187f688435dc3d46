# fuserlab-difftest --mode gpu --seed 305717 --count 1 --max-ops 14 (shrunk along 16.7.6)
# wrong_result: output 1: 2 of 3 elements differ (rtol 1e-05, atol 1.09363521e-05); worst at [1]: -nan (result) vs 0.320820242 (reference)
# A random fusion of FuserLab's differential tester, seed 305717.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.rand((6,), dtype=torch.float32, device="cuda")[::2],
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.ops.broadcast_in_dim(T0, shape=[3], broadcast_dims=[0])
    T2 = fd.ops.broadcast_in_dim(T1, shape=[3, 33], broadcast_dims=[0])
    T3 = fd.ops.sum(T2, dims=[0], keepdim=False)
    fd.add_output(T3)
    fd.add_output(T1)

fd.execute(inputs)
