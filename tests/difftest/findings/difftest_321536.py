# fuserlab-difftest --mode gpu --seed 321536 --count 1 --max-ops 14 (shrunk along 7.5)
# wrong_result before its fix (a tolerance, not a kernel): input 0 after the run: 13841 of 158565 elements differ (rtol 1e-10, atol 1.04e-10); worst at [3, 23, 646]: 3.12177555e-06 (result) vs 3.00256626e-06 (reference). The Double written into the input is computed through Half and Float math, so Float's tolerance applies; 0.5*x + log(1+|x|) cancels near x = -2.5 and one ulp of logf shows.
# A random fusion of FuserLab's differential tester, seed 321536.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn((5, 31, 1023), dtype=torch.float64, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.ops.cast(T0, dtype=DataType.Half)
    T2 = fd.ops.cast(T1, dtype=DataType.Float)
    T3 = fd.ops.log(fd.ops.add(fd.ops.abs(T2), 1.0))
    T4 = fd.ops.cast(T3, dtype=DataType.Double)
    T5 = fd.ops.add(fd.ops.mul(T0, 0.5), T4)
    fd.add_output(T5, alias_input=T0)

fd.execute(inputs)
