import torch
from nvfuser_direct import FusionDefinition, DataType

x = 1e400 * 0
y = int(1e308) ** 10
z = 10 ** 10 ** 10
