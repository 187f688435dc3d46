# fuserlab-difftest --mode compile --seed 441176 --count 1
# invalid before its fix (found by the compile mode's reference after the passes): allocation_order_propagation gave the [8, 1] max output a stride order, and the reference laid it out through its reduced axis as well ('Tensor::permute: 3 dims given for a 2-dim tensor'). The reference now leaves reduced axes out of the permutation.
# A random fusion of FuserLab's differential tester, seed 441176.
# Compile options: --set dependent_launch=off
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn((64, 64, 31, 2), dtype=torch.float32, device="cuda"),
    torch.rand((), dtype=torch.float32, device="cuda"),
    torch.randint(0, 2, (1,), dtype=torch.bool, device="cuda").expand(1023,),
    torch.randint(0, 2, (34,), dtype=torch.bool, device="cuda")[::2],
    torch.rand((8, 1, 129), dtype=torch.float32, device="cuda")[:, :, 1:],
    torch.randn((8, 1, 128), dtype=torch.float32, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    T2 = fd.from_pytorch(inputs[2])
    T3 = fd.ops.reshape(T2, new_shape=[1023])
    T4 = fd.from_pytorch(inputs[3])
    T5 = fd.ops.cat([T3, T4], dim=0)
    T6 = fd.ops.logical_not(T2)
    T7 = fd.ops.cast(T6, dtype=DataType.Float)
    T8 = fd.ops.sqrt(fd.ops.abs(T1))
    T9 = fd.ops.neg(T8)
    T10 = fd.ops.sum(T7, dims=[0], keepdim=True)
    T11 = fd.ops.broadcast_in_dim(T10, shape=[8, 1, 128], broadcast_dims=[1])
    T12 = fd.ops.div(T11, 3.0)
    T13 = fd.from_pytorch(inputs[4])
    T14 = fd.from_pytorch(inputs[5])
    T15 = fd.ops.eq(T13, T14)
    T16 = fd.ops.logical_not(T15)
    T17 = fd.ops.cast(T16, dtype=DataType.Int32)
    T18 = fd.ops.max(T17, dims=[2], keepdim=False)
    fd.add_output(T18)

fd.execute(inputs)
