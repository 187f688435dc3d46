# fuserlab-difftest --mode gpu --seed 101204 --count 1 --max-ops 14 (shrunk along 2.2)
# crash: cudaDeviceSynchronize failed: cudaErrorMisalignedAddress (misaligned address)
# A random fusion of FuserLab's differential tester, seed 101204.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randint(-9, 10, (32, 127, 5, 8), dtype=torch.int32, device="cuda")[:, :, :, 1:],
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.ops.slice(T0, start_indices=[3, 24, 1, 0], end_indices=[14, 112, 2, 6], strides=[2, 1, 1, 1])
    T2 = fd.ops.maximum(T1, T1)
    fd.add_output(T2)

fd.execute(inputs)
