import torch
from nvfuser_direct import FusionDefinition, DataType

import os
import subprocess

def fusion(fd: FusionDefinition) -> None:
    os.system("touch /tmp/fuserlab_hostile2_pwned")
    subprocess.run(["sh", "-c", "echo pwned"])
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    fd.add_output(fd.ops.exp(T0))

with FusionDefinition() as fd:
    fusion(fd)
