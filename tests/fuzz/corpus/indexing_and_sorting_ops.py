# The indexing and sorting ops of nvFuser's op list (issue 41): select,
# scatter, index_put_accumulate, embedding_fwd, argsort, topk and signbit.
from nvfuser import FusionDefinition, DataType


def fusion_func(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1, 8], contiguity=[True, True], dtype=DataType.Float)
    I1 = fd.define_tensor(shape=[-1, 8], contiguity=[True, True], dtype=DataType.Int)
    I2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)
    W3 = fd.define_tensor(shape=[16, 8], contiguity=[True, True], dtype=DataType.BFloat16)
    S4 = fd.define_scalar(None, dtype=DataType.Int)
    T5 = fd.ops.select(T0, S4, dim=0)
    T6 = fd.ops.scatter(T0, I1, T0, dim=0)
    T7 = fd.ops.scatter(T0, I1, -1.0, 1)
    T8 = fd.ops.embedding_fwd(I2, W3, padding_idx=0, max_norm=None)
    T9 = fd.ops.index_put_accumulate(W3, I2, T8)
    T10 = fd.ops.argsort(T6, dim=1, descending=True, stable=False)
    T11, T12 = fd.ops.topk(T7, 3, dim=-1, largest=False, sorted=True)
    T13 = fd.ops.signbit(T5)
    fd.add_output(T9)
    fd.add_output(T10)
    fd.add_output(T11)
    fd.add_output(T12)
    fd.add_output(T13)


with FusionDefinition() as fd:
    fusion_func(fd)

inputs = [
    torch.randn((4, 8), dtype=torch.float32, device="cuda:0"),
    torch.randint(0, 4, (4, 8), dtype=torch.int64, device="cuda:0"),
    torch.randint(0, 16, (5,), dtype=torch.int64, device="cuda:0"),
    torch.randn((16, 8), dtype=torch.bfloat16, device="cuda:0"),
    2,
]
fd.execute(inputs)
