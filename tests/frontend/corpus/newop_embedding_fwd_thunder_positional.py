# Style G (new op: embedding_fwd), old nvfuser flat trace as Thunder emits it:
# all seven arguments positional - fd.ops.embedding_fwd(T0, T1, None, None,
# S3, S4, S5) with norm_type 2.0 and two Bool False flags; ids [1, 6].
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[1, -1], contiguity=[None, True], dtype=DataType.Int, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    S3 = fd.define_scalar(2.00000, dtype=DataType.Double)
    S4 = fd.define_scalar(False, dtype=DataType.Bool)
    S5 = fd.define_scalar(False, dtype=DataType.Bool)
    T6 = fd.ops.embedding_fwd(T0, T1, None, None, S3, S4, S5)
    T7 = fd.ops.cast(T6, dtype=DataType.Float)
    T8 = fd.ops.mul(T7, T7)
    T9 = fd.ops.sum(T8, dims=[2], keepdim=False, dtype=DataType.Null)
    fd.add_output(T6)
    fd.add_output(T9)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randint(0, 100, (1, 6), dtype=torch.int64, device='cuda:0'),
    torch.randn((100, 32), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
