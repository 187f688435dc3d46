# Style D (test style): Python-side constant folding before the definition -
# `scale *= 2` in a loop, `bias -= 0.5`, math.sqrt, an f-string never used by
# the fusion, then define_scalar(scale) and mul/add. Half [50, 20].
import math
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [torch.randn(50, 20, device="cuda", dtype=torch.float16)]
scale = 1.0
for _ in range(3):
    scale *= 2
bias = 1.0
bias -= 0.5
label = f"scale={scale} bias={bias}"


def fusion_func(fd: FusionDefinition):
    x = fd.ops.cast(fd.from_pytorch(inputs[0]), dtype=DataType.Float)
    s = fd.define_scalar(scale / math.sqrt(16.0), dtype=DataType.Double)
    y = fd.ops.add(fd.ops.mul(x, s), bias)
    fd.add_output(fd.ops.cast(y, dtype=DataType.Half))


with FusionDefinition() as fd:
    fusion_func(fd)

nvf_out = fd.execute(inputs)
torch.testing.assert_close(nvf_out[0], (inputs[0].float() * 2.0 + 0.5).half())
