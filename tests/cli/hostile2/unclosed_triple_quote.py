import torch
from nvfuser_direct import FusionDefinition, DataType

x = """
never closed
