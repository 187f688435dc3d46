# Style D (test style): a for loop over op names with `continue` (skip
# odd positions) and `break` (stop at "stop"), choosing ops by `getattr(fd.ops,
# name)`; BFloat16 [12, 36] input, Float math.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [torch.randn(12, 36, device="cuda", dtype=torch.bfloat16)]
op_names = ["abs", "neg", "exp", "sin", "stop", "log", "sqrt"]


def fusion_func(fd: FusionDefinition):
    t = fd.ops.cast(fd.from_pytorch(inputs[0]), dtype=DataType.Float)
    for i, name in enumerate(op_names):
        if i % 2 == 1:
            continue
        if name == "stop":
            break
        t = getattr(fd.ops, name)(t)
    fd.add_output(fd.ops.cast(t, dtype=DataType.BFloat16))


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
