# Style B (old nvfuser flat trace): residual add then LayerNorm with
# var_mean(dims=[1], correction=0, keepdim=False) returning (var, mean), as
# Thunder emits it; outputs the sum, normalized result, mean and rstd. [8, 256].
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id1(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T4 = fd.ops.add(T0, T1)
    T5, T6 = fd.ops.var_mean(T4, dims=[1], correction=0, keepdim=False)
    T7 = fd.ops.broadcast_in_dim(T5, shape=[8, 1], broadcast_dims=[0])
    T8 = fd.ops.broadcast_in_dim(T6, shape=[8, 1], broadcast_dims=[0])
    S9 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
    T10 = fd.ops.add(T7, S9)
    T11 = fd.ops.rsqrt(T10)
    T12 = fd.ops.broadcast_in_dim(T8, shape=[8, 256], broadcast_dims=[0, 1])
    T13 = fd.ops.sub(T4, T12)
    T14 = fd.ops.broadcast_in_dim(T11, shape=[8, 256], broadcast_dims=[0, 1])
    T15 = fd.ops.mul(T13, T14)
    T16 = fd.ops.broadcast_in_dim(T2, shape=[8, 256], broadcast_dims=[1])
    T17 = fd.ops.mul(T15, T16)
    T18 = fd.ops.broadcast_in_dim(T3, shape=[8, 256], broadcast_dims=[1])
    T19 = fd.ops.add(T17, T18)
    fd.add_output(T4)
    fd.add_output(T19)
    fd.add_output(T8)
    fd.add_output(T11)

with FusionDefinition() as fd:
    nvfuser_fusion_id1(fd)

inputs = [
    torch.testing.make_tensor((8, 256), dtype=torch.float32, device='cuda:0'),
    torch.testing.make_tensor((8, 256), dtype=torch.float32, device='cuda:0'),
    torch.testing.make_tensor((256,), dtype=torch.float32, device='cuda:0'),
    torch.testing.make_tensor((256,), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
