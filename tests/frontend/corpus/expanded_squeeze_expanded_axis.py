# Style F (expanded inputs): squeeze(dims=[1], squeeze_expanded=True) removes
# an expanded axis (stride 0, size 6) of a [5, 6, 8] Half input; the result
# [5, 8] is added to a dense [5, 8] tensor.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, None, True], dtype=DataType.Half, is_cpu=False)
    tv1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False)
    tv2 = fd.ops.squeeze(tv0, dims=[1], squeeze_expanded=True)
    tv3 = fd.ops.add(tv2, tv1)
    fd.add_output(tv3)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.randn(40, dtype=torch.float16, device='cuda:0').as_strided((5, 6, 8), (8, 0, 1)),
    torch.testing.make_tensor((5, 8), dtype=torch.float16, device='cuda:0'),
]
fd.execute(inputs)
