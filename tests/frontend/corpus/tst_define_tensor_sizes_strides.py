# Style D (test style): define_tensor(sizes=x.shape, strides=x.stride(),
# dtype=...) taken from module-level tensors - one contiguous, one with a
# size-1 dim - as older nvFuser tests write it. Double precision.
import torch
from nvfuser_direct import FusionDefinition, DataType

a = torch.ones(6, 1, dtype=torch.double, device="cuda")
b = torch.randn(6, 9, dtype=torch.double, device="cuda")
inputs = [a, b]


def fusion_func(fd: FusionDefinition) -> None:
    t0 = fd.define_tensor(sizes=a.shape, strides=a.stride(), dtype=DataType.Double, is_cpu=False)
    t1 = fd.define_tensor(sizes=b.shape, strides=b.stride(), dtype=DataType.Double, is_cpu=False)
    t2 = fd.ops.broadcast_in_dim(t0, shape=[6, 9], broadcast_dims=[0, 1])
    t3 = fd.ops.div(t1, t2)
    fd.add_output(t3)


with FusionDefinition() as fd:
    fusion_func(fd)

out = fd.execute([a, b])
torch.testing.assert_close(out[0], b / a)
