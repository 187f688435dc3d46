# Style G (new op: scatter): scatter with a scalar src (define_scalar(value=None,
# dtype=DataType.Double), 1.5 in the inputs block) along dim 1 of a Float [6, 20];
# index rows are sliding windows (as_strided with strides (1, 1)).
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    t0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    t1 = fd.define_tensor(shape=[-1, -1], contiguity=[False, True], dtype=DataType.Int, is_cpu=False)
    s2 = fd.define_scalar(value=None, dtype=DataType.Double)
    t3 = fd.ops.scatter(t0, t1, s2, 1)
    fd.add_output(t3)

inputs = [
    torch.randn(6, 20, device="cuda"),
    torch.arange(10, device="cuda").as_strided((6, 5), (1, 1)),
    1.5,
]
fd.execute(inputs)
