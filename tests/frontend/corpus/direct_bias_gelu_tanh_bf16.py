# Style A (nvfuser_direct repro as printed): tanh-GELU of x + bias, bf16 [16, 128].
# Exercises broadcast(is_broadcast_dim=) + expand with constant shape, inlined
# Double constants in showpoint form (0.500000, 0.0447150), cast round trip.
# CUDA devices:
#  0: NVIDIA H100 80GB HBM3
# torch version: 2.7.0
# cuda version: 12.8
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    tv1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
    tv2 = fd.ops.cast(tv0, dtype=DataType.Float)
    tv3 = fd.ops.cast(tv1, dtype=DataType.Float)
    tv4 = fd.ops.broadcast(tv3, is_broadcast_dim=[True, False])
    tv5 = fd.ops.expand(tv4, shape=[16, 128])
    tv6 = fd.ops.add(tv2, tv5)
    tv7 = fd.ops.mul(tv6, tv6)
    tv8 = fd.ops.mul(tv7, tv6)
    tv9 = fd.ops.mul(tv8, 0.0447150)
    tv10 = fd.ops.add(tv6, tv9)
    tv11 = fd.ops.mul(tv10, 0.797885)
    tv12 = fd.ops.tanh(tv11)
    tv13 = fd.ops.add(tv12, 1.00000)
    tv14 = fd.ops.mul(tv6, 0.500000)
    tv15 = fd.ops.mul(tv14, tv13)
    tv16 = fd.ops.cast(tv15, dtype=DataType.BFloat16)
    fd.add_output(tv16)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((16, 128), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((128,), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
