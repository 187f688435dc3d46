# Two definitions; only the second is built and has inputs.
from nvfuser import FusionDefinition, DataType

def unused(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.ops.neg(T0)
    fd.add_output(T1)

def used(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T2 = fd.ops.add(T0, T1)
    fd.add_output(T2)

with FusionDefinition() as fd:
    used(fd)

inputs = [
    torch.randn(8, device='cuda:0'),
    torch.randn(8, device='cuda:0'),
]
fd.execute(inputs)
