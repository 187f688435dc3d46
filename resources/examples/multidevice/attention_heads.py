# An attention block's core with q, k and v sharded by heads, as tensor
# parallelism shards it: one fused qkv projection output [b, s, h, 3e] split
# over the mesh on its head axis; slices take q, k and v, permutes make them
# [b, h, s, e], causal SDPA runs on each device's heads, a permute and a
# reshape put the heads back as [b, s, h*e], and the output projection, its
# weight sharded on its input features, makes each device's result a partial
# sum that one allreduce completes. Sharding propagation carries the head
# sharding through the slices, permutes, SDPA and reshape; the allreduce is
# the only communication. Run: fuserlab-cli run FILE --ranks 2 --check
import torch
import nvfuser
from nvfuser import DataType, FusionDefinition

num_devices = 2
b, s, h, e = 2, 64, 4, 32

with FusionDefinition() as fd:
    qkv = fd.define_tensor(shape=[b, s, h, 3 * e], contiguity=True, dtype=DataType.BFloat16)
    q = fd.ops.slice(qkv, start_indices=[0, 0, 0, 0], end_indices=[b, s, h, e])
    k = fd.ops.slice(qkv, start_indices=[0, 0, 0, e], end_indices=[b, s, h, 2 * e])
    v = fd.ops.slice(qkv, start_indices=[0, 0, 0, 2 * e], end_indices=[b, s, h, 3 * e])
    q = fd.ops.permute(q, dims=[0, 2, 1, 3])
    k = fd.ops.permute(k, dims=[0, 2, 1, 3])
    v = fd.ops.permute(v, dims=[0, 2, 1, 3])
    dropout = fd.define_scalar(0.0, dtype=DataType.Double)
    causal = fd.define_scalar(True, dtype=DataType.Bool)
    scale = fd.define_scalar(e ** -0.5, dtype=DataType.Double)
    attn, lse, seed, offset = fd.ops.sdpfa_fwd(q, k, v, dropout, causal, scale)
    heads = fd.ops.permute(attn, dims=[0, 2, 1, 3])
    merged = fd.ops.reshape(heads, new_shape=[b, s, h * e])
    wo = fd.define_tensor(shape=[h * e, h * e], contiguity=True, dtype=DataType.BFloat16)
    out = fd.ops.linear(merged, wo)
    fd.add_output(out)

    mesh = nvfuser.DeviceMesh(range(num_devices))
    qkv.set_device_mesh(mesh)
    qkv.outer_split(2, num_devices)
    qkv.axis(2).parallelize(nvfuser.ParallelType.mesh_x)
    wo.set_device_mesh(mesh)
    wo.outer_split(1, num_devices)
    wo.axis(1).parallelize(nvfuser.ParallelType.mesh_x)

inputs = [
    torch.randn(b, s, h, 3 * e, dtype=torch.bfloat16, device="cuda:0"),
    torch.testing.make_tensor((h * e, h * e), dtype=torch.bfloat16, device="cuda:0", low=-0.1, high=0.1),
]
outputs = fd.execute(inputs)
