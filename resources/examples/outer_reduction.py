# Outer reduction over dim 0 with keepdim=True: the bias-gradient / column-mean
# pattern on a bf16 [4096, 768] tensor, giving [1, 768] fp32 sum and bf16 mean.
# Exercises: the outer-reduction path (reduced dim is the outermost), keepdim
# producing a broadcast dim in the output, reduction over a long iteration dim.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.sum(T1, dims=[0], keepdim=True, dtype=DataType.Null)
    S3 = fd.define_scalar(0.000244140625, dtype=DataType.Double)
    T4 = fd.ops.mul(T2, S3)
    T5 = fd.ops.cast(T4, dtype=DataType.BFloat16)
    fd.add_output(T2)
    fd.add_output(T5)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(3145728, dtype=torch.bfloat16, device='cuda:0').as_strided((4096, 768), (768, 1)),
]
fd.execute(inputs)
