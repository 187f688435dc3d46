# Seed 004's LoopSplitMLP: linear, tanh-GELU, linear, with the first weight
# sharded on its output features and the second on its input features (the
# Megatron MLP). Sharding propagation makes the GELU run on each device's
# slice of the hidden features and the second linear a partial sum, which one
# allreduce completes. Run: fuserlab-cli inspect FILE --dump fusion_ir_preseg
import torch
import nvfuser
from nvfuser import DataType, FusionDefinition

num_devices = 2


class LoopSplitMLP(FusionDefinition):
    def __init__(self, num_devices, batch, sequence, hidden):
        super().__init__()
        self._num_devices = num_devices
        self._batch = batch
        self._sequence = sequence
        self._hidden = hidden

    def definition(self):
        b, s, e = self._batch, self._sequence, self._hidden
        self.inp = self.define_tensor(shape=[b, s, e], contiguity=True, dtype=DataType.Float)
        self.w0 = self.define_tensor(shape=[4 * e, e], contiguity=True, dtype=DataType.Float)
        self.w1 = self.define_tensor(shape=[e, 4 * e], contiguity=True, dtype=DataType.Float)
        linear0 = self.ops.linear(self.inp, self.w0)
        cube = self.ops.mul(self.ops.mul(linear0, linear0), linear0)
        inner = self.ops.mul(self.ops.add(linear0, self.ops.mul(cube, 0.044715)), 0.7978845608028654)
        gelu = self.ops.mul(self.ops.mul(linear0, 0.5), self.ops.add(self.ops.tanh(inner), 1.0))
        self.out = self.ops.linear(gelu, self.w1)
        self.add_output(self.out)

    def multidevice_schedule(self):
        d = self._num_devices
        mesh = nvfuser.DeviceMesh(range(d))
        for t in [self.inp, self.w0, self.w1]:
            self.sched._set_device_mesh(t, mesh)
        self.sched.split(self.w0, 0, d, False)
        self.sched.parallelize(self.w0, 0, nvfuser.ParallelType.mesh_x)
        self.sched.split(self.w1, 1, d, False)
        self.sched.parallelize(self.w1, 1, nvfuser.ParallelType.mesh_x)


fd = LoopSplitMLP(num_devices, 2, 4, 8)

inputs = [
    torch.randn(2, 4, 8),
    torch.randn(32, 8),
    torch.randn(8, 32),
]
outputs = fd.execute(inputs)
