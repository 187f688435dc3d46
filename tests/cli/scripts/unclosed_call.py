from nvfuser import FusionDefinition, DataType

def broken(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.ops.exp(T0
    fd.add_output(T1)

with FusionDefinition() as fd:
    broken(fd)
