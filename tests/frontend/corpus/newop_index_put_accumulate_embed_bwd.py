# Style G (new op: index_put_accumulate, old nvfuser only - nvfuser_direct has
# no binding for it): embedding backward as an accumulate into a zero table,
# fd.ops.index_put_accumulate(acc, index, value); table [32, 16], 20 tokens.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False, stride_order=[0])
    T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T3 = fd.ops.index_put_accumulate(T0, T1, T2)
    fd.add_output(T3)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.zeros((32, 16), dtype=torch.float32, device='cuda:0'),
    torch.randint(0, 32, (20,), dtype=torch.int64, device='cuda:0'),
    torch.randn((20, 16), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
