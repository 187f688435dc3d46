import torch
from nvfuser_direct import FusionDefinition, DataType

x = 1 << (1 << 62)
