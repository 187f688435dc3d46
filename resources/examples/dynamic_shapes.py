# Bias add then a head split whose target shape is built at run time from the input:
# T0.shape() as a broadcast_in_dim shape, T0.size(0)/T0.size(1) in a define_vector
# mixed with literal 12 and 64, reshape [8, 512, 768] -> [8, 512, 12, 64], permute.
# Exercises: symbolic extents flowing through Vector/size scalars into meta ops.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    V2 = T0.shape()
    T3 = fd.ops.broadcast_in_dim(T1, shape=V2, broadcast_dims=[2])
    T4 = fd.ops.add(T0, T3)
    S5 = T0.size(0)
    S6 = T0.size(1)
    V7 = fd.define_vector([S5, S6, 12, 64], dtype=DataType.Int)
    T8 = fd.ops.reshape(T4, new_shape=V7)
    T9 = fd.ops.permute(T8, dims=[0, 2, 1, 3])
    fd.add_output(T9)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(3145728, dtype=torch.float32, device='cuda:0').as_strided((8, 512, 768), (393216, 768, 1)),
    torch.randn(768, dtype=torch.float32, device='cuda:0').as_strided((768,), (1,)),
]
fd.execute(inputs)
