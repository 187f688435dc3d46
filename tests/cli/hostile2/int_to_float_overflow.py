import torch
from nvfuser_direct import FusionDefinition, DataType

x = float(10 ** 400)
