# Style G (new op: scatter), old nvfuser flat trace: a one-hot target built
# in-fusion - full(zeros) then scatter(T3, T2, S4, 1) with positional dim and
# the label column broadcast_in_dim'ed to [10, 1]; 10 labels over 12 classes.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id3(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False, stride_order=[0])
    T2 = fd.ops.broadcast_in_dim(T1, shape=[10, 1], broadcast_dims=[0])
    S3 = fd.define_scalar(0.00000, dtype=DataType.Double)
    T3 = fd.ops.full(shape=[10, 12], fill_value=S3, dtype=DataType.Float)
    S4 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T5 = fd.ops.scatter(T3, T2, S4, 1)
    T6 = fd.ops.mul(T0, T5)
    T7 = fd.ops.sum(T6, dims=[1], keepdim=False, dtype=DataType.Null)
    fd.add_output(T5)
    fd.add_output(T7)

with FusionDefinition() as fd:
    nvfuser_fusion_id3(fd)

inputs = [
    torch.randn((10, 12), dtype=torch.float32, device='cuda:0'),
    torch.randint(0, 12, (10,), dtype=torch.int64, device='cuda:0'),
]
fd.execute(inputs)
