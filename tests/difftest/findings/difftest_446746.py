# fuserlab-difftest --mode compile --seed 446746 --count 1 --max-ops 14 (shrunk along 9.5.4.3)
# wrong result after gather_through_pointwise: an input expanded along the gathered axis (stride 0) was taken as the same at every index with its expanded extent, so the pushed product had shape [33, 8, 32] for [33, 8, 1]. Fixed: it is gathered.
# A random fusion of FuserLab's differential tester, seed 446746.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn((33, 8, 1), dtype=torch.float32, device="cuda").expand(33, 8, 32),
    torch.randn((33, 8, 32), dtype=torch.float32, device="cuda"),
    torch.randint(0, 32, (33, 8, 1), dtype=torch.int64, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    T2 = fd.ops.mul(T0, T1)
    T3 = fd.from_pytorch(inputs[2])
    T4 = fd.ops.take_along_axis(T2, T3, dim=2)
    fd.add_output(T4)

fd.execute(inputs)
