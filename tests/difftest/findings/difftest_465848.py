# fuserlab-difftest --mode gpu --seed 465848 --count 1
# wrong_result before its fix: log_softmax of [a, b] (values up to 255) picked at the max was 1.52587891e-05 where the reference gives 0: the logsumexp's chunk fold took exp(x - m) as ex2(fma(x, log2 e, -m log2 e)), off by |m| * 2^-24. Now ex2((x - m) * log2 e), exact at the max. # A random fusion of FuserLab's differential tester, seed 465848.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn((), dtype=torch.float32, device="cuda"),
    torch.randint(-9, 10, (256,), dtype=torch.int32, device="cuda"),
    torch.randint(0, 256, (2,), dtype=torch.int64, device="cuda"),
    torch.randint(0, 2, (1,), dtype=torch.int64, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    T2 = fd.ops.gt(T1, 1)
    T3 = fd.from_pytorch(inputs[2])
    T4 = fd.ops.gather(T2, T3, dim=0)
    T5 = fd.ops.cast(T3, dtype=DataType.Float)
    T6 = fd.ops.sub(T5, fd.ops.broadcast_in_dim(fd.ops.max(T5, dims=[0], keepdim=False), shape=[2], broadcast_dims=[]))
    T7 = fd.ops.sub(T6, fd.ops.broadcast_in_dim(fd.ops.log(fd.ops.sum(fd.ops.exp(T6), dims=[0], keepdim=False)), shape=[2], broadcast_dims=[]))
    T8 = fd.from_pytorch(inputs[3])
    T9 = fd.ops.take_along_axis(T7, T8, dim=0)
    fd.add_output(T9)
    fd.add_output(T2)
    fd.add_output(T6)

fd.execute(inputs)
