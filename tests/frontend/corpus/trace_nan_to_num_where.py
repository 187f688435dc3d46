# Style B (old nvfuser flat trace): nan_to_num as Thunder decomposes it:
# isnan / isposinf / isneginf masks, nested where with define_scalar
# replacement values, then a row sum. Float [30, 50].
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id10(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.ops.isnan(T0)
    S2 = fd.define_scalar(0.00000, dtype=DataType.Double)
    T3 = fd.ops.where(T1, S2, T0)
    T4 = fd.ops.isposinf(T3)
    S5 = fd.define_scalar(1000.00, dtype=DataType.Double)
    T6 = fd.ops.where(T4, S5, T3)
    T7 = fd.ops.isneginf(T6)
    S8 = fd.define_scalar(-1000.00, dtype=DataType.Double)
    T9 = fd.ops.where(T7, S8, T6)
    T10 = fd.ops.sum(T9, dims=[1], keepdim=False, dtype=DataType.Null)
    fd.add_output(T9)
    fd.add_output(T10)

with FusionDefinition() as fd:
    nvfuser_fusion_id10(fd)

inputs = [
    torch.randn((1500,), dtype=torch.float32, device='cuda:0').as_strided((30, 50), (50, 1)),
]
fd.execute(inputs)
