# fuserlab-difftest --mode gpu --seed 102615 --count 1 --max-ops 14 (shrunk along 14.10.8.7.7.7)
# wrong_result: output 1: 133038 of 135168 elements differ (rtol 1e-05, atol 1.14990811e-05); worst at [25, 2, 61]: 0.0033461214 (result) vs 0.501073182 (reference)
# Compile options: --set upcast=forward --set bookend=none --set graph_launch=off
# A random fusion of FuserLab's differential tester, seed 102615.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.rand((64, 33, 64), dtype=torch.float32, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.ops.permute(T0, dims=[2, 0, 1])
    T2 = fd.ops.permute(T1, dims=[0, 2, 1])
    T3 = fd.ops.min(T2, dims=[1, 2], keepdim=False)
    T4 = fd.ops.sum(T3, dims=[0], keepdim=False)
    T5 = fd.ops.add(fd.ops.mul(T0, 0.5), T2)
    fd.add_output(T4)
    fd.add_output(T5, alias_input=T0)

fd.execute(inputs)
