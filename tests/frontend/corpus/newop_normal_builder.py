# Style G (new op: normal), benchmark builder: weight_noise_fusion(fd, dtype,
# std) draws fd.ops.normal(mean, std, shape, dtype=dtype) with the shape from
# w.size(0)/w.size(1) and the std a define_scalar of a parameter; bf16 [20, 36].
import torch
from nvfuser_direct import FusionDefinition, DataType


def weight_noise_fusion(fd: FusionDefinition, dtype: DataType, std: float = 0.05) -> None:
    w = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    mean = fd.define_scalar(0.0, dtype=DataType.Double)
    sd = fd.define_scalar(std, dtype=DataType.Double)
    noise = fd.ops.normal(mean, sd, [w.size(0), w.size(1)], dtype=DataType.Float)
    out = fd.ops.add(fd.ops.cast(w, dtype=DataType.Float), noise)
    fd.add_output(fd.ops.cast(out, dtype=dtype))


with FusionDefinition() as fd:
    weight_noise_fusion(fd, DataType.BFloat16, std=0.01)

inputs = [torch.randn(20, 36, device="cuda", dtype=torch.bfloat16)]
fd.execute(inputs)
