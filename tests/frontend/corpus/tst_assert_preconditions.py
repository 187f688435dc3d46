# Style D (test style): `assert` statements at module level and inside the
# fusion function (len, ndim, shape comparisons, an assert with a message),
# then a where/maximum fusion on Float [9, 27] inputs.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn(9, 27, device="cuda"),
    torch.randn(9, 27, device="cuda"),
]
assert len(inputs) == 2
assert inputs[0].shape == inputs[1].shape, "inputs must match"


def fusion_func(fd: FusionDefinition) -> None:
    assert inputs[0].ndim == 2
    a = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    b = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    bigger = fd.ops.maximum(a, b)
    pos = fd.ops.gt(a, 0.0)
    fd.add_output(fd.ops.where(pos, bigger, fd.ops.minimum(a, b)))


with FusionDefinition() as fd:
    fusion_func(fd)

out = fd.execute(inputs)[0]
assert out.shape == (9, 27)
