# Only meta ops between input and outputs: nothing needs a kernel.
from nvfuser import FusionDefinition, DataType

def meta_only(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.ops.permute(T0, dims=[0, 2, 1])
    T2 = fd.ops.reshape(T0, new_shape=[T0.size(0), -1])
    T3 = fd.ops.slice(T0, start_indices=[0, 0, 0], end_indices=[2, 4, 8], strides=[1, 1, 1])
    T4 = fd.ops.broadcast_in_dim(T3, shape=[2, 1, 4, 8], broadcast_dims=[0, 2, 3])
    fd.add_output(T1)
    fd.add_output(T2)
    fd.add_output(T4)

with FusionDefinition() as fd:
    meta_only(fd)

inputs = [
    torch.randn(4, 16, 32, dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
