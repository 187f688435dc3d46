# fuserlab-difftest --mode compile --seed 445293 --count 1 --max-ops 14 (shrunk along 5.6.5.5.5)
# wrong result after gather_through_pointwise: a where() of values broadcast and expanded along the gathered axis by an elementwise op (not an Expand op) was taken as the same at every index, and the result kept the expanded extent (Double[2] for Double[1]). Fixed: such operands are gathered or pushed through.
# A random fusion of FuserLab's differential tester, seed 445293.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.rand((), dtype=torch.float64, device="cuda"),
    torch.randn((), dtype=torch.float64, device="cuda"),
    torch.randn((2,), dtype=torch.float64, device="cuda"),
    torch.randint(0, 2, (1,), dtype=torch.int64, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.ops.broadcast_in_dim(T0, shape=[2], broadcast_dims=[])
    T2 = fd.from_pytorch(inputs[1])
    T3 = fd.ops.add(T1, T2)
    T4 = fd.from_pytorch(inputs[2])
    T5 = fd.ops.where(fd.ops.gt(T4, 0.0), T3, T1)
    T6 = fd.from_pytorch(inputs[3])
    T7 = fd.ops.take_along_axis(T5, T6, dim=0)
    fd.add_output(T7)

fd.execute(inputs)
