# fuserlab-difftest --mode gpu --seed 203349 --count 1
# refused on an H200 before its fix: input 0 (T1) dimension 3: declared contiguous, so its stride must be 1, found 0 (a kernel-free reshape of a slice of an expanded input)
# A random fusion of FuserLab's differential tester, seed 203349.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn((64, 64, 1), dtype=torch.float32, device="cuda").expand(64, 64, 33),
    torch.randn((), dtype=torch.float32, device="cuda"),
    torch.rand((2, 5, 109), dtype=torch.float32, device="cuda")[:, :, 1:],
    torch.rand((108, 5, 2), dtype=torch.float32, device="cuda").permute(2, 1, 0),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.ops.slice(T0, start_indices=[0, 9, 0], end_indices=[64, 50, 33])
    T2 = fd.ops.reshape(T1, new_shape=[4, 16, 41, 33])
    T3 = fd.ops.permute(T2, dims=[1, 3, 2, 0])
    T4 = fd.ops.slice(T2, start_indices=[0, 0, 0, 14], end_indices=[4, 16, 41, 31])
    T5 = fd.ops.slice(T4, start_indices=[2, 4, 1, 5], end_indices=[4, 13, 28, 16], strides=[1, 2, 1, 3])
    T6 = fd.ops.reshape(T5, new_shape=[2, 5, 108])
    T7 = fd.ops.mul(T6, 0.5)
    T8 = fd.from_pytorch(inputs[1])
    T9 = fd.ops.add(T7, T8)
    T10 = fd.from_pytorch(inputs[2])
    T11 = fd.from_pytorch(inputs[3])
    T12 = fd.ops.ge(T10, T11)
    fd.add_output(T12)
    fd.add_output(T3)

fd.execute(inputs)
