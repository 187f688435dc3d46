# Style B (old nvfuser flat trace) with the `import nvfuser` header: the
# definition names nvfuser.FusionDefinition and nvfuser.DataType.Half.
# SwiGLU silu(gate) * up on Half [16, 176].
import torch
import nvfuser

def nvfuser_fusion_id2(fd : nvfuser.FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=nvfuser.DataType.Half, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=nvfuser.DataType.Half, is_cpu=False, stride_order=[1, 0])
    T2 = fd.ops.cast(T0, dtype=nvfuser.DataType.Float)
    T3 = fd.ops.neg(T2)
    T4 = fd.ops.exp(T3)
    S5 = fd.define_scalar(1.00000, dtype=nvfuser.DataType.Double)
    T6 = fd.ops.add(S5, T4)
    T7 = fd.ops.reciprocal(T6)
    T8 = fd.ops.mul(T2, T7)
    T9 = fd.ops.cast(T1, dtype=nvfuser.DataType.Float)
    T10 = fd.ops.mul(T8, T9)
    T11 = fd.ops.cast(T10, dtype=nvfuser.DataType.Half)
    fd.add_output(T11)

with nvfuser.FusionDefinition() as fd:
    nvfuser_fusion_id2(fd)

inputs = [
    torch.testing.make_tensor((16, 176), dtype=torch.float16, device='cuda:0'),
    torch.testing.make_tensor((16, 176), dtype=torch.float16, device='cuda:0'),
]
fd.execute(inputs)
