# fuserlab-difftest --mode gpu --seed 371095 --count 1 --max-ops 14 (shrunk along 15.8)
# wrong_result before its fix: output 0 (T6, reshape of an expanded [8] broadcast to [8, 33], 264 elements) had 256 of 264 elements unwritten (2.1e9 where the reference gives -4). The pointwise kernel walked the [8, 128, 1, 8] output T4; no axis of it reaches T5's broadcast axis of 33, so only positions 33 * a0 were written. Such an output now gets a segment of its own (a kernel-free view of T1).
# A random fusion of FuserLab's differential tester, seed 371095.
# Compile options: --set bookend=none
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randint(-9, 10, (8, 128, 8), dtype=torch.int32, device="cuda"),
    torch.randint(-9, 10, (1,), dtype=torch.int32, device="cuda").expand(8,),
]

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    T2 = fd.ops.broadcast_in_dim(T1, shape=[8, 128, 8], broadcast_dims=[0])
    T3 = fd.ops.where(fd.ops.gt(T0, 0), T0, T2)
    T4 = fd.ops.broadcast_in_dim(T3, shape=[8, 128, 1, 8], broadcast_dims=[0, 1, 3])
    T5 = fd.ops.broadcast_in_dim(T1, shape=[8, 33], broadcast_dims=[0])
    T6 = fd.ops.reshape(T5, new_shape=[264])
    fd.add_output(T6)
    fd.add_output(T4)

fd.execute(inputs)
