# Style E (inline with-block): Python control flow inside the with-block - a
# tuple of intermediates registered with `for o in (...): fd.add_output(o)`,
# and a comprehension of pow exponents. Int32 input cast to Float, [33, 31].
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    t0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int32, is_cpu=False)
    x = fd.ops.cast(t0, dtype=DataType.Float)
    powers = [fd.ops.pow(x, float(k)) for k in range(1, 4)]
    total = fd.ops.add(fd.ops.add(powers[0], powers[1]), powers[2])
    for o in (powers[1], total, fd.ops.sum(total, dims=[1])):
        fd.add_output(o)

inputs = [torch.randint(-3, 4, (33, 31), device="cuda", dtype=torch.int32)]
fd.execute(inputs)
