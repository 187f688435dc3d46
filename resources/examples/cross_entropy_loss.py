# Cross-entropy loss (mean) over an odd vocabulary, as Thunder writes it: bf16
# logits [128, 32003] upcast, log_softmax as x - max - log(sum(exp(x - max))),
# take_along_axis at int64 labels, -sum / N. Exercises the online_logsumexp and
# gather_through_pointwise passes: one pass over the logits, the labels' logits picked.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False, stride_order=[0])
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.max(T2, dims=[1], keepdim=False, dtype=DataType.Null)
    T4 = fd.ops.broadcast_in_dim(T3, shape=[128, 1], broadcast_dims=[0])
    T5 = fd.ops.broadcast_in_dim(T4, shape=[128, 32003], broadcast_dims=[0, 1])
    T6 = fd.ops.sub(T2, T5)
    T7 = fd.ops.exp(T6)
    T8 = fd.ops.sum(T7, dims=[1], keepdim=False, dtype=DataType.Null)
    T9 = fd.ops.log(T8)
    T10 = fd.ops.broadcast_in_dim(T9, shape=[128, 1], broadcast_dims=[0])
    T11 = fd.ops.broadcast_in_dim(T10, shape=[128, 32003], broadcast_dims=[0, 1])
    T12 = fd.ops.sub(T6, T11)
    T13 = fd.ops.broadcast_in_dim(T1, shape=[128, 1], broadcast_dims=[0])
    T14 = fd.ops.take_along_axis(T12, T13, dim=1)
    T15 = fd.ops.sum(T14, dims=[0, 1], keepdim=False, dtype=DataType.Null)
    S16 = fd.define_scalar(-0.0078125, dtype=DataType.Double)
    T17 = fd.ops.mul(T15, S16)
    fd.add_output(T17)
    fd.add_output(T3)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(4098384, dtype=torch.bfloat16, device='cuda:0').as_strided((128, 32003), (32003, 1)),
    torch.randint(0, 32003, (128,), dtype=torch.int64, device='cuda:0').as_strided((128,), (1,)),
]
fd.execute(inputs)
