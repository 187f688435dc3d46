# Style F (0-dim tensor input): a 0-dim Int tensor (a token count) cast to
# Float and used as the divisor of a 3-D sum [4, 6, 10]; the 0-dim input is
# made with torch.randint(1, 9, ()).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id1(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Int, is_cpu=False)
    T2 = fd.ops.cast(T1, dtype=DataType.Float)
    T3 = fd.ops.sum(T0, dims=[1], keepdim=False, dtype=DataType.Null)
    T4 = fd.ops.div(T3, T2)
    T5 = fd.ops.div(T0, T2)
    fd.add_output(T4)
    fd.add_output(T5)

with FusionDefinition() as fd:
    nvfuser_fusion_id1(fd)

inputs = [
    torch.randn((4, 6, 10), dtype=torch.float32, device='cuda:0'),
    torch.randint(1, 9, (), dtype=torch.int64, device='cuda:0'),
]
fd.execute(inputs)
