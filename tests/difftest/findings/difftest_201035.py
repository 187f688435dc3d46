# fuserlab-difftest --mode gpu --seed 201035 --count 1 --max-ops 14
# crash: cudaDeviceSynchronize failed: cudaErrorIllegalAddress (an illegal memory access was encountered)
# A random fusion of FuserLab's differential tester, seed 201035.
# Compile options: --set bookend=none
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn((1, 3, 128, 128), dtype=torch.float32, device="cuda").expand(5, 3, 128, 128),
    torch.randn((5, 3, 128, 10), dtype=torch.float32, device="cuda"),
    torch.rand((5, 8, 128, 10), dtype=torch.float32, device="cuda"),
    torch.randn((5, 256), dtype=torch.float32, device="cuda")[:, ::2],
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.ops.slice(T0, start_indices=[0, 0, 0, 36], end_indices=[5, 3, 128, 46])
    T2 = fd.from_pytorch(inputs[1])
    T3 = fd.ops.div(T1, fd.ops.add(fd.ops.abs(T2), 1.0))
    T4 = fd.from_pytorch(inputs[2])
    T5 = fd.ops.cat([T3, T4], dim=1)
    T6 = fd.from_pytorch(inputs[3])
    T7 = fd.ops.broadcast_in_dim(T6, shape=[5, 11, 128, 10], broadcast_dims=[0, 2])
    T8 = fd.ops.mul(T5, T7)
    T9 = fd.ops.sum(T1, dims=[0, 1], keepdim=False)
    T10 = fd.ops.sigmoid(T9)
    T11 = fd.ops.rsqrt(fd.ops.add(fd.ops.abs(T10), 0.5))
    T12 = fd.ops.broadcast_in_dim(T11, shape=[128, 128, 10], broadcast_dims=[0, 2])
    fd.add_output(T12)
    fd.add_output(T5)

fd.execute(inputs)
