# Style E (inline with-block): definitions written directly inside
# `with FusionDefinition() as fd:`; relu then row sum of a Float [25, 60].
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    t0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    t1 = fd.ops.relu(t0)
    t2 = fd.ops.sum(t1, dims=[1])
    fd.add_output(t1)
    fd.add_output(t2)

inputs = [torch.randn(25, 60, device="cuda")]
outputs = fd.execute(inputs)
