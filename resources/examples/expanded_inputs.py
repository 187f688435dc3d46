# RMSNorm backward on [4, 256, 2048] as Thunder hands it over: the weight
# arrives expanded to the activation's shape (stride 0 on the batch and
# sequence axes: contiguity None with shape -1) and the saved rstd expanded
# along the hidden axis (the sizes/strides form with a 0 stride). Exercises:
# expanded input axes in both define_tensor forms, .expand and as_strided
# with stride 0 in the inputs block, outer and inner reductions beside them.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    T2 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[None, None, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    T3 = fd.define_tensor(sizes=[4, 256, 2048], strides=[256, 1, 0], dtype=DataType.Float)
    T4 = fd.ops.cast(T0, dtype=DataType.Float)
    T5 = fd.ops.cast(T1, dtype=DataType.Float)
    T6 = fd.ops.cast(T2, dtype=DataType.Float)
    T7 = fd.ops.mul(T5, T3)
    T8 = fd.ops.mul(T4, T7)
    T9 = fd.ops.sum(T8, dims=[0, 1], keepdim=False, dtype=DataType.Null)
    T10 = fd.ops.mul(T4, T6)
    T11 = fd.ops.mul(T10, T7)
    T12 = fd.ops.sum(T11, dims=[2], keepdim=False, dtype=DataType.Null)
    T13 = fd.ops.broadcast_in_dim(T12, shape=[4, 256, 2048], broadcast_dims=[0, 1])
    S14 = fd.define_scalar(0.00048828125, dtype=DataType.Double)
    T15 = fd.ops.mul(T13, S14)
    T16 = fd.ops.mul(T7, T15)
    T17 = fd.ops.sub(T10, T16)
    T18 = fd.ops.mul(T17, T3)
    T19 = fd.ops.cast(T18, dtype=DataType.BFloat16)
    fd.add_output(T19)
    fd.add_output(T9)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(4, 256, 2048, dtype=torch.bfloat16, device='cuda:0'),
    torch.randn(4, 256, 2048, dtype=torch.bfloat16, device='cuda:0'),
    torch.randn(2048, dtype=torch.bfloat16, device='cuda:0').expand(4, 256, 2048),
    torch.rand(4, 256, 1, device='cuda:0').as_strided((4, 256, 2048), (256, 1, 0)),
]
fd.execute(inputs)
