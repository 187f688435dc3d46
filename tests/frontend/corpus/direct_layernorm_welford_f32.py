# Style A (nvfuser_direct repro as printed): LayerNorm forward, Float [24, 160],
# as the printer lowers it: welford(dims=[1]) giving avg, var_sum and N, then
# var_sum / N, rsqrt, affine weight and bias. Three outputs.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    tv1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    tv2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    tv3, tv4, tv5 = fd.ops.welford(tv0, dims=[1])
    tv6 = fd.ops.div(tv4, 160.000)
    tv7 = fd.ops.add(tv6, 1.00000e-05)
    tv8 = fd.ops.rsqrt(tv7)
    tv9 = fd.ops.broadcast(tv3, is_broadcast_dim=[False, True])
    tv10 = fd.ops.expand(tv9, shape=[24, 160])
    tv11 = fd.ops.sub(tv0, tv10)
    tv12 = fd.ops.broadcast(tv8, is_broadcast_dim=[False, True])
    tv13 = fd.ops.expand(tv12, shape=[24, 160])
    tv14 = fd.ops.mul(tv11, tv13)
    tv15 = fd.ops.broadcast(tv1, is_broadcast_dim=[True, False])
    tv16 = fd.ops.expand(tv15, shape=[24, 160])
    tv17 = fd.ops.mul(tv14, tv16)
    tv18 = fd.ops.broadcast(tv2, is_broadcast_dim=[True, False])
    tv19 = fd.ops.expand(tv18, shape=[24, 160])
    tv20 = fd.ops.add(tv17, tv19)
    fd.add_output(tv20)
    fd.add_output(tv3)
    fd.add_output(tv8)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((24, 160), dtype=torch.float32, device='cuda:0'),
    torch.testing.make_tensor((160,), dtype=torch.float32, device='cuda:0'),
    torch.testing.make_tensor((160,), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
