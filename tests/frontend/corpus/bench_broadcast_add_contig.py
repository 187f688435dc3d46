# Style C (benchmark builder): broadcast_add_fusion(fd, dtype, bcast_axis,
# contiguous) - conditional expressions choose the broadcast dim and the input
# contiguity; a non-contiguous input made with as_strided. bf16 [32, 64].
import torch
from nvfuser_direct import FusionDefinition, DataType


def broadcast_add_fusion(fd: FusionDefinition, dtype: DataType, bcast_axis: int, contiguous: bool = True) -> None:
    bcast_shape = [1, -1] if bcast_axis == 0 else [-1, 1]
    bcast_contig = [None, True] if bcast_axis == 0 else [True, None]
    in_contig = [True, True] if contiguous else [False, True]
    T0 = fd.define_tensor(shape=bcast_shape, contiguity=bcast_contig, dtype=dtype, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=in_contig, dtype=dtype, is_cpu=False)
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.cast(T1, dtype=DataType.Float)
    T4 = fd.ops.add(T2, T3)
    fd.add_output(fd.ops.cast(T4, dtype=dtype))


with FusionDefinition() as fd:
    broadcast_add_fusion(fd, DataType.BFloat16, bcast_axis=1, contiguous=False)

inputs = [
    torch.randn(32, 1, device="cuda", dtype=torch.bfloat16),
    torch.randn(32 * 80, device="cuda", dtype=torch.bfloat16).as_strided((32, 64), (80, 1)),
]
fd.execute(inputs)
