# Style A (nvfuser_direct repro as printed): row softmax of a Half [32, 96] tensor.
# Exercises max(dims=[1]) with the Null dtype left out, sum(dims=[1], dtype=...),
# broadcast + expand back to the input extents, reciprocal, cast.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False)
    tv1 = fd.ops.cast(tv0, dtype=DataType.Float)
    tv2 = fd.ops.max(tv1, dims=[1])
    tv3 = fd.ops.broadcast(tv2, is_broadcast_dim=[False, True])
    tv4 = fd.ops.expand(tv3, shape=[32, 96])
    tv5 = fd.ops.sub(tv1, tv4)
    tv6 = fd.ops.exp(tv5)
    tv7 = fd.ops.sum(tv6, dims=[1], dtype=DataType.Float)
    tv8 = fd.ops.broadcast(tv7, is_broadcast_dim=[False, True])
    tv9 = fd.ops.expand(tv8, shape=[32, 96])
    tv10 = fd.ops.reciprocal(tv9)
    tv11 = fd.ops.mul(tv6, tv10)
    tv12 = fd.ops.cast(tv11, dtype=DataType.Half)
    fd.add_output(tv12)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((32, 96), dtype=torch.float16, device='cuda:0'),
]
fd.execute(inputs)
