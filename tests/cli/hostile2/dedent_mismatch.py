import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd):
        x = 1
    y = 2
