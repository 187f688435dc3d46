import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    S1 = fd.define_scalar(float("nan"), dtype=DataType.Double)
    S2 = fd.define_scalar(float("inf"), dtype=DataType.Double)
    S3 = fd.define_scalar(-float("inf"), dtype=DataType.Double)
    S4 = fd.define_scalar(1e400, dtype=DataType.Double)
    T1 = fd.ops.add(fd.ops.mul(T0, S1), fd.ops.div(S2, S3))
    fd.add_output(fd.ops.add(T1, S4))

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(4, 8)]
fd.execute(inputs)
