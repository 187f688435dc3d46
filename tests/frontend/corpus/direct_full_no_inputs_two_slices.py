# Style A (nvfuser_direct repro as printed): a fusion with no inputs: full(shape=[5], 1.0), two slices
# of it, each cast to half, both outputs.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.ops.full(shape=[5], fill_value=1.0, dtype=DataType.Float)
    tv1 = fd.ops.slice(tv0, start_indices=[0], end_indices=[2], strides=[1], manual_normalization=True)
    tv2 = fd.ops.slice(tv0, start_indices=[2], end_indices=[5], strides=[1], manual_normalization=True)
    tv3 = fd.ops.cast(tv1, dtype=DataType.Half)
    tv4 = fd.ops.cast(tv2, dtype=DataType.Half)
    fd.add_output(tv3)
    fd.add_output(tv4)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)
inputs = []
fd.execute(inputs)
