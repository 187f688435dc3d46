# Style D (test style): a dict from torch dtypes to DataType members looked up
# with `dtype_map[inputs[0].dtype]`, a dict of per-output scales iterated with
# `.items()`; Half inputs [20, 30].
import torch
from nvfuser_direct import FusionDefinition, DataType

dtype_map = {
    torch.float32: DataType.Float,
    torch.float16: DataType.Half,
    torch.bfloat16: DataType.BFloat16,
}
inputs = [torch.randn(20, 30, device="cuda", dtype=torch.float16)]
scales = {"half": 0.5, "double": 2.0}


def fusion_func(fd: FusionDefinition) -> None:
    dt = dtype_map[inputs[0].dtype]
    t0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dt, is_cpu=False)
    t1 = fd.ops.cast(t0, dtype=DataType.Float)
    for name, s in scales.items():
        fd.add_output(fd.ops.cast(fd.ops.mul(t1, s), dtype=dt))


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
