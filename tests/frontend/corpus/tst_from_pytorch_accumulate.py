# Style D (test style): module-level inputs, fd.from_pytorch(inputs[i]) in a
# for loop over range(len(inputs)), accumulation with `acc = fd.ops.add(acc, t)`,
# then nvf_out = fd.execute(inputs) and a torch check the reader ignores.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn(4, 6, 8, device="cuda"),
    torch.randn(4, 6, 8, device="cuda"),
    torch.randn(4, 6, 8, device="cuda"),
]


def fusion_func(fd: FusionDefinition):
    tensors = []
    for i in range(len(inputs)):
        tensors.append(fd.from_pytorch(inputs[i]))
    acc = tensors[0]
    for t in tensors[1:]:
        acc = fd.ops.add(acc, t)
    fd.add_output(acc)


with FusionDefinition() as fd:
    fusion_func(fd)

nvf_out = fd.execute(inputs)
torch.testing.assert_close(nvf_out[0], inputs[0] + inputs[1] + inputs[2])
