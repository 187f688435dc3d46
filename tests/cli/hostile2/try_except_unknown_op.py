import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    try:
        T1 = fd.ops.frobnicate(T0)
    except AttributeError:
        T1 = fd.ops.exp(T0)
    except Exception as e:
        raise
    finally:
        pass
    fd.add_output(T1)

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(4, 8)]
fd.execute(inputs)
