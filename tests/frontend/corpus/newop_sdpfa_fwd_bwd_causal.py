# Style G (new op: sdpfa_bwd): causal attention forward and backward in one
# fusion - sdpfa_fwd's (output, logsumexp, philox_seed, philox_offset) feed
# sdpfa_bwd positionally; bf16 q/k/v/grad [1, 2, 16, 32], is_causal a Bool.
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    q = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=True, dtype=DataType.BFloat16, is_cpu=False)
    k = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=True, dtype=DataType.BFloat16, is_cpu=False)
    v = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=True, dtype=DataType.BFloat16, is_cpu=False)
    grad_out = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=True, dtype=DataType.BFloat16, is_cpu=False)
    dropout_p = fd.define_scalar(0.0, dtype=DataType.Double)
    is_causal = fd.define_scalar(True, dtype=DataType.Bool)
    output, logsumexp, philox_seed, philox_offset = fd.ops.sdpfa_fwd(q, k, v, dropout_p=dropout_p, is_causal=is_causal)
    grad_q, grad_k, grad_v = fd.ops.sdpfa_bwd(grad_out, q, k, v, output, logsumexp, dropout_p, is_causal, philox_seed, philox_offset, None)
    fd.add_output(output)
    fd.add_output(grad_q)
    fd.add_output(grad_k)
    fd.add_output(grad_v)

inputs = [torch.randn(1, 2, 16, 32, device="cuda", dtype=torch.bfloat16) for _ in range(4)]
fd.execute(inputs)
