# Causal flash-attention forward via fd.ops.sdpfa_fwd on bf16 q/k/v [2, 16, 256, 64]
# (concrete define_tensor shapes), then the Thunder epilogue: permute heads back,
# stride_order, reshape to [2, 256, 1024]. Exercises: a 4-output op (out, logsumexp,
# philox seed/offset), Bool/Double scalar operands, an SDPA segment plus meta epilogue.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[2, 16, 256, 64], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[3, 2, 1, 0])
    T1 = fd.define_tensor(shape=[2, 16, 256, 64], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[3, 2, 1, 0])
    T2 = fd.define_tensor(shape=[2, 16, 256, 64], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[3, 2, 1, 0])
    S3 = fd.define_scalar(0.00000, dtype=DataType.Double)
    S4 = fd.define_scalar(True, dtype=DataType.Bool)
    S5 = fd.define_scalar(0.125000, dtype=DataType.Double)
    T6, T7, T8, T9 = fd.ops.sdpfa_fwd(T0, T1, T2, S3, S4, S5)
    T10 = fd.ops.permute(T6, dims=[0, 2, 1, 3])
    T11 = fd.ops.stride_order(T10, stride_order=[3, 2, 1, 0])
    T12 = fd.ops.reshape(T11, new_shape=[2, 256, 1024])
    fd.add_output(T6)
    fd.add_output(T7)
    fd.add_output(T12)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(524288, dtype=torch.bfloat16, device='cuda:0').as_strided((2, 16, 256, 64), (262144, 16384, 64, 1)),
    torch.randn(524288, dtype=torch.bfloat16, device='cuda:0').as_strided((2, 16, 256, 64), (262144, 16384, 64, 1)),
    torch.randn(524288, dtype=torch.bfloat16, device='cuda:0').as_strided((2, 16, 256, 64), (262144, 16384, 64, 1)),
]
fd.execute(inputs)
