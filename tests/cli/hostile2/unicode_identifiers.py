import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    Tψ = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    résultat = fd.ops.exp(Tψ)
    ｆｕｌｌ＿ｗｉｄｔｈ = fd.ops.neg(résultat)
    fd.add_output(ｆｕｌｌ＿ｗｉｄｔｈ)

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(4, 8)]
fd.execute(inputs)
