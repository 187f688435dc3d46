# fuserlab-difftest --mode gpu --seed 678434 --count 1 --max-ops 14
# wrong_result before its fix: output 1: 13530 of 168795 elements differ (exact); worst at [0, 0, 0, 2]: 1 (result) vs 0 (reference). Output 0, a [25575] reshape of a slice of an expanded broadcast axis, was written at every index of the [5, 1, 33, 1023] reference, past its end into output 1
# A random fusion of FuserLab's differential tester, seed 678434.
# Compile options: --set upcast=forward --set dependent_launch=off
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn((31, 3, 32, 65), dtype=torch.float32, device="cuda")[:, :, :, 1:],
    torch.randint(-9, 10, (255, 128, 7), dtype=torch.int64, device="cuda"),
    torch.randn((5, 1023), dtype=torch.bfloat16, device="cuda"),
    torch.randint(-9, 10, (5, 1023), dtype=torch.int32, device="cuda"),
    torch.randint(0, 2, (5, 1023), dtype=torch.bool, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    T2 = fd.from_pytorch(inputs[2])
    T3 = fd.ops.exp(fd.ops.tanh(T0))
    T4 = fd.ops.exp(fd.ops.tanh(T3))
    T5 = fd.ops.cast(T2, dtype=DataType.Int32)
    T6 = fd.ops.broadcast_in_dim(T5, shape=[1, 5, 1023], broadcast_dims=[1, 2])
    T7 = fd.ops.pad(T6, [1, 0], 0)
    T8 = fd.from_pytorch(inputs[3])
    T9 = fd.ops.ge(T5, T8)
    T10 = fd.from_pytorch(inputs[4])
    T11 = fd.ops.logical_or(T9, T10)
    T12 = fd.ops.broadcast_in_dim(T11, shape=[5, 33, 1023, 1], broadcast_dims=[0, 2])
    T13 = fd.ops.permute(T12, dims=[0, 3, 1, 2])
    T14 = fd.ops.slice(T13, start_indices=[0, 0, 12, 0], end_indices=[5, 1, 22, 1023], strides=[1, 1, 2, 1])
    T15 = fd.ops.reshape(T14, new_shape=[25575])
    fd.add_output(T15)
    fd.add_output(T13)

fd.execute(inputs)
