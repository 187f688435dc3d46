# fuserlab-difftest --mode gpu --seed 352802 --count 1 --max-ops 14
# wrong_result before its fix: output 0 was 0.254 where the reference gives 1.414. The pointwise kernel read the length-1 iota under expand(shape=[64]) at the consumer's position 0..63 (the iota's axis has extent 1 but is not marked broadcast), so the one element it wrote held whichever position was written last (15 on the H200) and the min read that.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
]

with FusionDefinition() as fd:
    T0 = fd.ops.full(shape=[256, 31, 1], fill_value=1.5, dtype=DataType.Float)
    T1 = fd.ops.iota(1, 0, 1, dtype=DataType.Int)
    T2 = fd.ops.expand(T1, shape=[64])
    T3 = fd.ops.min(T2, dims=[0], keepdim=False)
    T4 = fd.ops.cast(T3, dtype=DataType.Float)
    T5 = fd.ops.cos(fd.ops.tanh(T4))
    T6 = fd.ops.rsqrt(fd.ops.add(fd.ops.abs(T5), 0.5))
    T7 = fd.ops.cast(T3, dtype=DataType.Float)
    T8 = fd.ops.rsqrt(fd.ops.add(fd.ops.abs(T7), 0.5))
    fd.add_output(T8)

fd.execute(inputs)
