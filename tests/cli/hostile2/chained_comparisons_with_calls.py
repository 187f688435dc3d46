import torch
from nvfuser_direct import FusionDefinition, DataType

def f():
    return f
x = f()()()()() < f() < f()
