# Style G (new op: logical_right_shift), test style as nvFuser's
# test_right_shift_logical: int32 and int64 tensors holding negatives shifted
# right by a constant 3 (zeros shifted in, so negatives become large
# positives), and the int64 one by a scalar input (5) as well.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randint(-2**31, 2**31 - 1, (64,), dtype=torch.int32, device="cuda"),
    torch.randint(-2**40, 2**40, (4, 64), dtype=torch.int64, device="cuda"),
    5,
]


def fusion_func(fd: FusionDefinition) -> None:
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])
    s0 = fd.define_scalar(None, dtype=DataType.Int)
    c0 = fd.define_scalar(3)
    fd.add_output(fd.ops.logical_right_shift(t0, c0))
    fd.add_output(fd.ops.logical_right_shift(t1, c0))
    fd.add_output(fd.ops.logical_right_shift(t1, s0))


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
