# Two contiguous fp32 inputs added; used with mismatching --inputs.
from nvfuser import FusionDefinition, DataType

def add_pair(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T2 = fd.ops.add(T0, T1)
    fd.add_output(T2)

with FusionDefinition() as fd:
    add_pair(fd)

inputs = [
    torch.randn(4, 8, dtype=torch.float32, device='cuda:0'),
    torch.randn(32, dtype=torch.float32, device='cuda:0').as_strided((4, 8), (1, 4)),
]
fd.execute(inputs)
