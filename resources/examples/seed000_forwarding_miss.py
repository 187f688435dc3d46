# Seed 000 (nvFuser #3832, FowardingMissProjectionToLowerPrecisionInput) in the Python
# dialect: cast bf16->fp32, set, inner sum, broadcast, add, cast back; a second
# input's segment_set output forces segmentation. Exercises: input forwarding of the
# cast hiding the bf16 persistent-buffer projection (S = 64K, SEG=1 in the issue).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.set(T1)
    T3 = fd.ops.sum(T2, dims=[1], keepdim=False, dtype=DataType.Null)
    T4 = fd.ops.broadcast(T3, is_broadcast_dim=[False, True])
    T5 = fd.ops.add(T2, T4)
    T6 = fd.ops.cast(T5, dtype=DataType.BFloat16)
    fd.add_output(T6)
    T7 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T8 = fd.ops.segment_set(T7)
    fd.add_output(T8)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(8388608, dtype=torch.bfloat16, device='cuda:0').as_strided((128, 65536), (65536, 1)),
    torch.randn(10, dtype=torch.bfloat16, device='cuda:0').as_strided((10,), (1,)),
]
fd.execute(inputs)
