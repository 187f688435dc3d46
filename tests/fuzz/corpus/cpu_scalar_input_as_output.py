# Style F (0-dim tensor input): a CPU 0-dim Double tensor (is_cpu=True, as
# Thunder passes scalars that stay on the host) used as a divisor of a 3-D
# Float tensor [5, 6, 7]; the inputs block builds it without a device.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id3(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Double, is_cpu=True)
    T2 = fd.ops.cast(T1, dtype=DataType.Float)
    T3 = fd.ops.div(T0, T2)
    T4 = fd.ops.sum(T3, dims=[2], keepdim=False, dtype=DataType.Null)
    fd.add_output(T1)
    fd.add_output(T4)

with FusionDefinition() as fd:
    nvfuser_fusion_id3(fd)

inputs = [
    torch.randn((5, 6, 7), dtype=torch.float32, device='cuda:0'),
    torch.full((), 4.0, dtype=torch.float64),
]
fd.execute(inputs)
