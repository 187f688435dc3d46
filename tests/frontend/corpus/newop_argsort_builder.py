# Style G (new op: argsort), benchmark builder: sort_rows_fusion(fd, dtype,
# dim, descending=False) passes its parameters through to fd.ops.argsort
# with the default stable=False; Half [12, 48] sorted along dim 0.
import torch
from nvfuser_direct import FusionDefinition, DataType


def sort_rows_fusion(fd: FusionDefinition, dtype: DataType, dim: int, descending: bool = False) -> None:
    t0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    order = fd.ops.argsort(t0, dim=dim, descending=descending)
    ranks = fd.ops.argsort(order, dim)
    fd.add_output(order)
    fd.add_output(ranks)


with FusionDefinition() as fd:
    sort_rows_fusion(fd, DataType.Half, dim=0)

inputs = [torch.randn(12, 48, device="cuda", dtype=torch.float16)]
fd.execute(inputs)
