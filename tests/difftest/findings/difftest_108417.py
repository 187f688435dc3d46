# fuserlab-difftest --mode gpu --seed 108417 --count 1 --max-ops 14 (shrunk along 17.11.10)
# wrong_result: output 0: 217 of 790 elements differ (exact); worst at [0, 2, 0, 1]: 1 (result) vs 0 (reference)
# Compile options: --set upcast=forward
# A random fusion of FuserLab's differential tester, seed 108417.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn((4, 3, 513), dtype=torch.bfloat16, device="cuda"),
    torch.randint(0, 2, (2, 2, 1, 513), dtype=torch.bool, device="cuda"),
    torch.randint(0, 2, (2, 3, 1, 79), dtype=torch.bool, device="cuda"),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.ops.lt(T0, 0.0)
    T2 = fd.ops.reshape(T1, new_shape=[2, 2, 3, 513])
    T3 = fd.from_pytorch(inputs[1])
    T4 = fd.ops.cat([T2, T3], dim=2)
    T5 = fd.ops.slice(T4, start_indices=[0, 0, 2, 12], end_indices=[2, 2, 3, 91])
    T6 = fd.from_pytorch(inputs[2])
    T7 = fd.ops.cat([T5, T6], dim=1)
    T8 = fd.ops.permute(T7, dims=[2, 1, 3, 0])
    T9 = fd.ops.cast(T1, dtype=DataType.BFloat16)
    T10 = fd.ops.add(fd.ops.mul(T0, 0.5), T9)
    fd.add_output(T8)
    fd.add_output(T10, alias_input=T0)

fd.execute(inputs)
