import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    outs = [fd.ops.mul(T0, fd.define_scalar(float(i), dtype=DataType.Double)) for i in range(4) if i % 2 == 0]
    byname = {f"o{i}": t for i, t in enumerate(outs)}
    for k in sorted(byname):
        fd.add_output(byname[k])

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(4, 8)]
fd.execute(inputs)
