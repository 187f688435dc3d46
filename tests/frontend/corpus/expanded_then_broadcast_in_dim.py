# Style F (expanded inputs): an expanded [-1, -1] position bias (stride 0 on
# rows) lifted to 3-D with broadcast_in_dim(shape=[3, 10, 14],
# broadcast_dims=[1, 2]) and added to attention scores [3, 10, 14].
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id4(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[None, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T2 = fd.ops.broadcast_in_dim(T1, shape=[3, 10, 14], broadcast_dims=[1, 2])
    T3 = fd.ops.add(T0, T2)
    S4 = fd.define_scalar(0.500000, dtype=DataType.Double)
    T5 = fd.ops.mul(T3, S4)
    fd.add_output(T5)

with FusionDefinition() as fd:
    nvfuser_fusion_id4(fd)

inputs = [
    torch.randn((3, 10, 14), dtype=torch.float32, device='cuda:0'),
    torch.randn((14,), dtype=torch.float32, device='cuda:0').as_strided((10, 14), (0, 1)),
]
fd.execute(inputs)
