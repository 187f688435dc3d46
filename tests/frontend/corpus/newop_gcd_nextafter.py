# Style G (new ops: gcd, nextafter), test style: gcd of int64 [16, 33] tensors
# holding negatives and zeros (the gcd of magnitudes; gcd(0, 0) is 0), and
# nextafter of Float [16, 33] toward a Double tensor cast to Float, and of
# the Double toward the Float cast up (one ulp of each dtype).
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randint(-60, 61, (16, 33), dtype=torch.int64, device="cuda"),
    torch.randint(0, 49, (16, 33), dtype=torch.int64, device="cuda"),
    torch.randn(16, 33, dtype=torch.float32, device="cuda"),
    torch.randn(16, 33, dtype=torch.float64, device="cuda"),
]


def fusion_func(fd: FusionDefinition) -> None:
    a = fd.from_pytorch(inputs[0])
    b = fd.from_pytorch(inputs[1])
    x = fd.from_pytorch(inputs[2])
    y = fd.from_pytorch(inputs[3])
    fd.add_output(fd.ops.gcd(a, b))
    fd.add_output(fd.ops.nextafter(x, fd.ops.cast(y, dtype=DataType.Float)))
    fd.add_output(fd.ops.nextafter(y, fd.ops.cast(x, dtype=DataType.Double)))


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
