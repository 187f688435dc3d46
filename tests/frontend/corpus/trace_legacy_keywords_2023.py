# Style B (an older nvfuser trace, 2023): define_tensor(symbolic_sizes=...),
# sum(axes=[...]), broadcast_in_dim(output_shape=...), and
# reshape(original_shape=..., new_shape=...). Float [12, 20].
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(symbolic_sizes=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(symbolic_sizes=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T2 = fd.ops.sum(T0, axes=[1], keepdim=False, dtype=DataType.Float)
    T3 = fd.ops.add(T2, T1)
    T4 = fd.ops.broadcast_in_dim(T3, output_shape=[12, 20], broadcast_dims=[0])
    T5 = fd.ops.sub(T0, T4)
    T6 = fd.ops.reshape(T5, original_shape=[12, 20], new_shape=[240])
    S7 = fd.define_scalar(0.0500000, dtype=DataType.Double)
    T8 = fd.ops.mul(T6, S7)
    fd.add_output(T8)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn((12, 20), dtype=torch.float32, device='cuda:0'),
    torch.randn((12,), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
