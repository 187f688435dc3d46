# fuserlab-difftest --mode gpu --seed 440346 --count 1
# unavailable before its fix (no kernel, the fusion could not run): the inner persistent scheduler took a take_along_axis from a log_softmax of a full() row, which code generation refused ('the gathered tensor does not move along the row'). A row gather now needs a source fed by a tensor input; this one goes to a pointwise segment.
# A random fusion of FuserLab's differential tester, seed 440346.
# Compile options: --set bookend=none --set dependent_launch=off --set graph_launch=off
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randint(0, 33, (1,), dtype=torch.int64, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.ops.full(shape=[33], fill_value=-0.25, dtype=DataType.Float)
    T1 = fd.ops.iota(33, 0, 1, dtype=DataType.Int)
    T2 = fd.ops.sub(T0, fd.ops.broadcast_in_dim(fd.ops.max(T0, dims=[0], keepdim=False), shape=[33], broadcast_dims=[]))
    T3 = fd.ops.sub(T2, fd.ops.broadcast_in_dim(fd.ops.log(fd.ops.sum(fd.ops.exp(T2), dims=[0], keepdim=False)), shape=[33], broadcast_dims=[]))
    T4 = fd.from_pytorch(inputs[0])
    T5 = fd.ops.take_along_axis(T3, T4, dim=0)
    fd.add_output(T5)
    fd.add_output(T3)

fd.execute(inputs)
