# Style E (inline with-block): split a Float [9, 42] into three column slices
# with default strides, reorder them with cat(..., dim=1), and concatenate the
# first two rows-slices along dim 0.
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    t0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    a = fd.ops.slice(t0, start_indices=[0, 0], end_indices=[9, 14])
    b = fd.ops.slice(t0, start_indices=[0, 14], end_indices=[9, 28])
    c = fd.ops.slice(t0, start_indices=[0, 28], end_indices=[9, 42])
    fd.add_output(fd.ops.cat([c, a, b], dim=1))
    top = fd.ops.slice(t0, start_indices=[0, 0], end_indices=[4, 42])
    bottom = fd.ops.slice(t0, start_indices=[4, 0], end_indices=[9, 42])
    fd.add_output(fd.ops.cat([bottom, top], dim=0))

inputs = [torch.randn(9, 42, device="cuda")]
fd.execute(inputs)
