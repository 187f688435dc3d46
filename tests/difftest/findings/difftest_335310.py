# fuserlab-difftest --mode gpu --seed 335310 --count 1 --max-ops 14 (shrunk along 4.6)
# crash before its fix: cudaDeviceSynchronize failed: cudaErrorMisalignedAddress (misaligned address). T0 read as vectors twice, once through a permute; the chunks crossing rows (127 per row) that were allowed for tensors laid out as generated read the permuted copy across rows.
# A random fusion of FuserLab's differential tester, seed 335310.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn((4, 16, 16, 127), dtype=torch.float64, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.ops.lt(T0, 0.0)
    T2 = fd.ops.permute(T1, dims=[0, 2, 1, 3])
    T3 = fd.ops.cast(T2, dtype=DataType.Float)
    T4 = fd.ops.cast(T0, dtype=DataType.Float)
    T5 = fd.ops.where(fd.ops.gt(T3, 0.0), T3, T4)
    fd.add_output(T5)

fd.execute(inputs)
