# Style E (inline with-block): the FusionDefinition bound to another name
# (`with FusionDefinition() as fusion:`), executed as fusion.execute(...) and
# indexed directly with [0]; exp2/log2 on a Float [128, 8].
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fusion:
    inp = fusion.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    pos = fusion.ops.add(fusion.ops.abs(inp), 1.0)
    out = fusion.ops.exp2(fusion.ops.log2(pos))
    fusion.add_output(out)

inputs = [torch.randn(128, 8, device="cuda")]
result = fusion.execute(inputs)[0]
