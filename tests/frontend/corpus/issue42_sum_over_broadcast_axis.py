# Style A (nvfuser_direct repro as printed, issue 42 item 4b): a bf16 row scale
# tv0 [N] broadcast to tv1's shape with broadcast_in_dim(shape=tv1.shape()) -
# tv1 is read only for its shape - times a [1, M] column factor, then summed
# over axis 1, which only the broadcasts give extent. Odd sizes: [2047, 4095].
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
    tv1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    tv2 = fd.define_tensor(shape=[1, -1], contiguity=[None, True], dtype=DataType.BFloat16, is_cpu=False)
    tv3 = fd.ops.cast(tv0, dtype=DataType.Float)
    tv4 = fd.ops.broadcast_in_dim(tv3, shape=tv1.shape(), broadcast_dims=[0])
    tv5 = fd.ops.cast(tv2, dtype=DataType.Float)
    tv6 = fd.ops.mul(tv4, tv5)
    tv7 = fd.ops.sum(tv6, dims=[1], keepdim=False, dtype=DataType.Null)
    tv8 = fd.ops.cast(tv7, dtype=DataType.BFloat16)
    fd.add_output(tv8)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)
inputs = [
    torch.randn(2047, dtype=torch.bfloat16, device='cuda:0'),
    torch.randn(2047, 4095, dtype=torch.bfloat16, device='cuda:0'),
    torch.randn(1, 4095, dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
