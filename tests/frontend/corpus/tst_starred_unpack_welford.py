# Style D (test style): starred unpacking `avg, *_ = fd.ops.welford(...)`
# and `var, mean = ...`, tuple swap; bf16 input from fd.from_pytorch.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [torch.randn(16, 120, device="cuda", dtype=torch.bfloat16)]


def fusion_func(fd: FusionDefinition) -> None:
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.ops.cast(t0, dtype=DataType.Float)
    avg, *_ = fd.ops.welford(t1, dims=[1])
    var, mean = fd.ops.var_mean(t1, dims=[1], correction=1)
    first, second = var, mean
    first, second = second, first
    fd.add_output(avg)
    fd.add_output(first)
    fd.add_output(second)


with FusionDefinition() as fd:
    fusion_func(fd)

avg_out, mean_out, var_out = fd.execute(inputs)
torch.testing.assert_close(avg_out, mean_out)
