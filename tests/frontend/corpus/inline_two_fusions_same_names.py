# Style E (two inline fusions): both fusions reuse the names fd, T0, T1 and
# inputs - a Thunder-like pair (cast+mul, then a reduction of a 3-D Int
# tensor cast to Float). The second must not see the first's values.
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False)
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.mul(T1, 3.0)
    fd.add_output(fd.ops.cast(T2, dtype=DataType.Half))

inputs = [torch.randn(11, 13, device="cuda", dtype=torch.float16)]
fd.execute(inputs)

with FusionDefinition() as fd:
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Int, is_cpu=False)
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.sum(T1, dims=[0, 2])
    fd.add_output(T2)

inputs = [torch.randint(-5, 5, (3, 11, 13), device="cuda")]
fd.execute(inputs)
