# Style E (inline with-block): softmax over dim 0 of a Half [50, 30], with
# keepdim=True reductions and the output cast back; also logs the column
# normalizer as a second Float output.
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    t0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False)
    t1 = fd.ops.cast(t0, dtype=DataType.Float)
    m = fd.ops.max(t1, dims=[0], keepdim=True)
    e = fd.ops.exp(fd.ops.sub(t1, m))
    s = fd.ops.sum(e, dims=[0], keepdim=True)
    fd.add_output(fd.ops.cast(fd.ops.div(e, s), dtype=DataType.Half))
    fd.add_output(fd.ops.log(s))

inputs = [torch.randn(50, 30, device="cuda", dtype=torch.float16)]
fd.execute(inputs)
