# Attention head split of a batch-1 fused QKV projection [1, 512, 3072]: squeeze,
# slice out K, reshape to heads, permute, then scale by an expanded per-head weight.
# Exercises: the meta ops seed 001 bookends (squeeze/slice/reshape/permute,
# broadcast_in_dim + expand) and a meta-only output that can alias its input.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[1, -1, -1], contiguity=[None, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T2 = fd.ops.squeeze(T0, dims=[0])
    T3 = fd.ops.slice(T2, start_indices=[0, 1024], end_indices=[512, 2048], strides=[1, 1])
    T4 = fd.ops.reshape(T3, new_shape=[512, 16, 64])
    T5 = fd.ops.permute(T4, dims=[1, 0, 2])
    T6 = fd.ops.broadcast_in_dim(T1, shape=[16, 1, 1], broadcast_dims=[0])
    T7 = fd.ops.expand(T6, shape=[16, 512, 64])
    T8 = fd.ops.cast(T5, dtype=DataType.Float)
    T9 = fd.ops.cast(T7, dtype=DataType.Float)
    T10 = fd.ops.mul(T8, T9)
    T11 = fd.ops.cast(T10, dtype=DataType.BFloat16)
    fd.add_output(T5)
    fd.add_output(T11)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(1572864, dtype=torch.bfloat16, device='cuda:0').as_strided((1, 512, 3072), (1572864, 3072, 1)),
    torch.randn(16, dtype=torch.bfloat16, device='cuda:0').as_strided((16,), (1,)),
]
fd.execute(inputs)
