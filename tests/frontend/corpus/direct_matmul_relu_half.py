# Style A (nvfuser_direct repro as printed): Half matmul [16, 32] x [32, 24]
# followed by a Float epilogue: cast, add a per-column bias via broadcast and
# expand, relu, cast back to Half.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False)
    tv1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False)
    tv2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    tv3 = fd.ops.matmul(tv0, tv1)
    tv4 = fd.ops.cast(tv3, dtype=DataType.Float)
    tv5 = fd.ops.broadcast(tv2, is_broadcast_dim=[True, False])
    tv6 = fd.ops.expand(tv5, shape=[16, 24])
    tv7 = fd.ops.add(tv4, tv6)
    tv8 = fd.ops.relu(tv7)
    tv9 = fd.ops.cast(tv8, dtype=DataType.Half)
    fd.add_output(tv9)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((16, 32), dtype=torch.float16, device='cuda:0'),
    torch.testing.make_tensor((32, 24), dtype=torch.float16, device='cuda:0'),
    torch.testing.make_tensor((24,), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
