# Style A (nvfuser_direct repro as printed): a channels-last bf16 NCHW input
# [2, 8, 6, 6] (stride_order=[3, 0, 2, 1], as_strided with strides
# (288, 1, 48, 8)), per-channel scale, and a stride_order op on the output.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[3, 0, 2, 1])
    tv1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
    tv2 = fd.ops.cast(tv0, dtype=DataType.Float)
    tv3 = fd.ops.cast(tv1, dtype=DataType.Float)
    tv4 = fd.ops.broadcast(tv3, is_broadcast_dim=[True, False, True, True])
    tv5 = fd.ops.expand(tv4, shape=[2, 8, 6, 6])
    tv6 = fd.ops.mul(tv2, tv5)
    tv7 = fd.ops.cast(tv6, dtype=DataType.BFloat16)
    tv8 = fd.ops.stride_order(tv7, stride_order=[3, 0, 2, 1])
    fd.add_output(tv8)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.randn(576, dtype=torch.bfloat16, device='cuda:0').as_strided((2, 8, 6, 6), (288, 1, 48, 8)),
    torch.testing.make_tensor((8,), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
