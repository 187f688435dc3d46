# Style G (new op: rand_like), old nvfuser flat trace: the legacy binding's
# keyword-only seed arguments - fd.ops.rand_like(T0, rng_seed=S1,
# rng_offset=S2) - with S1/S2 value-less Int inputs; Half [30, 30].
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id2(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False, stride_order=[1, 0])
    S1 = fd.define_scalar(None, dtype=DataType.Int)
    S2 = fd.define_scalar(None, dtype=DataType.Int)
    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4 = fd.ops.rand_like(T3, rng_seed=S1, rng_offset=S2)
    S5 = fd.define_scalar(0.200000, dtype=DataType.Double)
    T6 = fd.ops.ge(T4, S5)
    T7 = fd.ops.cast(T6, dtype=DataType.Float)
    T8 = fd.ops.mul(fd.ops.mul(T3, T7), 1.25000)
    fd.add_output(fd.ops.cast(T8, dtype=DataType.Half))

with FusionDefinition() as fd:
    nvfuser_fusion_id2(fd)

inputs = [
    torch.testing.make_tensor((30, 30), dtype=torch.float16, device='cuda:0'),
    2024,
    0,
]
fd.execute(inputs)
