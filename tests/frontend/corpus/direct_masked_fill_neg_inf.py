# Style A (nvfuser_direct repro as printed): fill masked scores with -inf, then
# a numerically safe row softmax. Exercises a Bool input (make_tensor with
# dtype=torch.bool), where() with the float("-inf") literal the printer emits.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    tv1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Bool, is_cpu=False)
    tv2 = fd.ops.logical_not(tv1)
    tv3 = fd.ops.where(tv2, tv0, float("-inf"))
    tv4 = fd.ops.max(tv0, dims=[1])
    tv5 = fd.ops.broadcast(tv4, is_broadcast_dim=[False, True])
    tv6 = fd.ops.expand(tv5, shape=[10, 28])
    tv7 = fd.ops.sub(tv3, tv6)
    tv8 = fd.ops.exp(tv7)
    tv9 = fd.ops.sum(tv8, dims=[1], dtype=DataType.Float)
    tv10 = fd.ops.add(tv9, 1.00000e-06)
    tv11 = fd.ops.broadcast(tv10, is_broadcast_dim=[False, True])
    tv12 = fd.ops.expand(tv11, shape=[10, 28])
    tv13 = fd.ops.div(tv8, tv12)
    fd.add_output(tv13)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((10, 28), dtype=torch.float32, device='cuda:0'),
    torch.testing.make_tensor((10, 28), dtype=torch.bool, device='cuda:0'),
]
fd.execute(inputs)
