# Style B (old nvfuser flat trace): per-tensor amax and scale computation of
# an fp8-recipe prologue on bf16 [48, 64]: abs, max over both dims, clamp,
# a Double constant divided by a 0-dim tensor, mul, cast.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id15(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.abs(T1)
    T3 = fd.ops.max(T2, dims=[0, 1], keepdim=False, dtype=DataType.Null)
    S4 = fd.define_scalar(1.00000e-12, dtype=DataType.Double)
    S5 = fd.define_scalar(3.40282e+38, dtype=DataType.Double)
    T6 = fd.ops.clamp(T3, S4, S5)
    S7 = fd.define_scalar(448.000, dtype=DataType.Double)
    T8 = fd.ops.div(S7, T6)
    T9 = fd.ops.broadcast_in_dim(T8, shape=[48, 64], broadcast_dims=[])
    T10 = fd.ops.mul(T1, T9)
    T11 = fd.ops.cast(T10, dtype=DataType.BFloat16)
    fd.add_output(T3)
    fd.add_output(T8)
    fd.add_output(T11)

with FusionDefinition() as fd:
    nvfuser_fusion_id15(fd)

inputs = [
    torch.testing.make_tensor((48, 64), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
