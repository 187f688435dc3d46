# Style E (inline with-block): deeply nested fd.ops calls as arguments of
# other calls (no intermediate names) and an op result passed straight to
# fd.add_output. Float [15, 15] inputs a, b, c.
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    a = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    b = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    c = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    fd.add_output(fd.ops.add(fd.ops.mul(a, fd.ops.sigmoid(b)), fd.ops.exp(fd.ops.neg(fd.ops.abs(c)))))
    fd.add_output(fd.ops.sum(fd.ops.mul(fd.ops.sub(a, b), fd.ops.sub(a, c)), dims=[0, 1]))

inputs = [torch.randn(15, 15, device="cuda") for _ in range(3)]
fd.execute(inputs)
