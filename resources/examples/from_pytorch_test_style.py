# A definition in the style of nvFuser's Python tests: the inputs come first,
# fd.from_pytorch takes each tensor's sizes, strides and dtype (here a
# transposed fp32 [512, 1024] view and a bf16 row bias), a loop builds the
# epilogue, and the checks after fd.execute are read past, not run.
# Exercises: from_pytorch of a non-contiguous input, loops and helpers.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn(1024, 512, device="cuda").t(),
    torch.randn(1024, device="cuda", dtype=torch.bfloat16),
]


def scale_and_shift(fd, t, k):
    return fd.ops.add(fd.ops.mul(t, k), 1.0)


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    bias = fd.ops.cast(fd.from_pytorch(inputs[1]), DataType.Float)
    t = fd.ops.add(t0, fd.ops.broadcast_in_dim(bias, shape=t0.shape(), broadcast_dims=[1]))
    for k in (0.5, 2.0):
        t = scale_and_shift(fd, t, k)
    fd.add_output(fd.ops.cast(t, DataType.BFloat16))


with FusionDefinition() as fd:
    fusion_func(fd)
nvf_out = fd.execute(inputs)
eager = ((inputs[0] + inputs[1].float()) * 0.5 + 1.0) * 2.0 + 1.0
torch.testing.assert_close(nvf_out[0].float(), eager, rtol=1e-2, atol=1e-2)
