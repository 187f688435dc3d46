# Style B (old nvfuser flat trace): shapes computed in the fusion, as
# Thunder traces write them: S = fd.ops.size(T0, dim=...), fd.ops.mul on
# scalars, V = fd.define_vector([...]), reshape(T, new_shape=V), sum.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id11(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    S1 = fd.ops.size(T0, dim=0)
    S2 = fd.ops.size(T0, dim=1)
    S3 = fd.ops.size(T0, dim=2)
    S4 = fd.ops.mul(S1, S2)
    V5 = fd.define_vector([S4, S3], dtype=DataType.Int)
    T6 = fd.ops.reshape(T0, new_shape=V5)
    T7 = fd.ops.cast(T6, dtype=DataType.Float)
    T8 = fd.ops.sum(T7, dims=[0], keepdim=False, dtype=DataType.Null)
    T9 = fd.ops.cast(T8, dtype=DataType.BFloat16)
    fd.add_output(T6)
    fd.add_output(T9)

with FusionDefinition() as fd:
    nvfuser_fusion_id11(fd)

inputs = [
    torch.testing.make_tensor((3, 10, 56), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
