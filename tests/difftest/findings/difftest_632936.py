# fuserlab-difftest --mode gpu --seed 632936 --count 1 --max-ops 14 (shrunk along 12.4.5)
# wrong before its fix: an outer persistent kernel took a sum over axis 0 and a max over axis 0 of a permute of its result as one reduction pattern (same positions, different axes): 15,797 of 16,384 elements wrong on an H200
# A random fusion of FuserLab's differential tester, seed 632936.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn((16, 16, 32, 32), dtype=torch.float16, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.sub(T1, fd.ops.broadcast_in_dim(fd.ops.log(fd.ops.sum(fd.ops.exp(T1), dims=[0], keepdim=False)), shape=[16, 16, 32, 32], broadcast_dims=[1, 2, 3]))
    T3 = fd.ops.permute(T2, dims=[1, 0, 3, 2])
    T4 = fd.ops.max(T3, dims=[0], keepdim=True)
    fd.add_output(T4)

fd.execute(inputs)
