# Style E (two inline fusions, repro-printer names): two nvfuser_direct-style
# bodies inlined (tv/c names) - a masked add, then a pad + slice - each with
# its own inputs block, as users paste two repros into one file.
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    tv0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    tv1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Bool, is_cpu=False)
    tv2 = fd.ops.where(tv1, tv0, 0.00000)
    tv3 = fd.ops.add(tv2, tv0)
    fd.add_output(tv3)
inputs = [
    torch.testing.make_tensor((900,), dtype=torch.float32, device='cuda:0'),
    torch.testing.make_tensor((900,), dtype=torch.bool, device='cuda:0'),
]
fd.execute(inputs)

with FusionDefinition() as fd:
    tv0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    tv1 = fd.ops.pad(tv0, pad_widths=[2, 2, 1, 1], value=0.00000)
    tv2 = fd.ops.slice(tv1, start_indices=[1, 0], end_indices=[9, 20], strides=[1, 2], manual_normalization=True)
    fd.add_output(tv2)
inputs = [
    torch.testing.make_tensor((8, 16), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
