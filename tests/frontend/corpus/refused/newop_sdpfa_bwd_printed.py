# Style G (new op: sdpfa_bwd), nvfuser_direct repro names: a standalone
# backward with saved output/logsumexp and philox state as inputs (UInt64
# [2] seed and [] offset tensors), printed with all five keywords.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Half, is_cpu=False)
    tv1 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Half, is_cpu=False)
    tv2 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Half, is_cpu=False)
    tv3 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Half, is_cpu=False)
    tv4 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Half, is_cpu=False)
    tv5 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
    tv6 = fd.define_tensor(shape=[2], contiguity=[True], dtype=DataType.UInt64, is_cpu=False)
    tv7 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.UInt64, is_cpu=False)
    tv8, tv9, tv10 = fd.ops.sdpfa_bwd(tv0, tv1, tv2, tv3, tv4, tv5, dropout_p=0.00000, is_causal=False, philox_seed=tv6, philox_offset=tv7, scale=None)
    fd.add_output(tv8)
    fd.add_output(tv9)
    fd.add_output(tv10)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((2, 2, 8, 16), dtype=torch.float16, device='cuda:0'),
    torch.testing.make_tensor((2, 2, 8, 16), dtype=torch.float16, device='cuda:0'),
    torch.testing.make_tensor((2, 2, 12, 16), dtype=torch.float16, device='cuda:0'),
    torch.testing.make_tensor((2, 2, 12, 16), dtype=torch.float16, device='cuda:0'),
    torch.testing.make_tensor((2, 2, 8, 16), dtype=torch.float16, device='cuda:0'),
    torch.randn((2, 2, 8), dtype=torch.float32, device='cuda:0'),
    torch.zeros((2,), dtype=torch.uint64, device='cuda:0'),
    torch.zeros((), dtype=torch.uint64, device='cuda:0'),
]
fd.execute(inputs)
