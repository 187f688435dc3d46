# Keyword arguments over several lines, trailing commas, comments, two defs.
import torch
import torch.testing as tt
from nvfuser import (
    FusionDefinition,
    DataType,  # trailing comma
)


def first(fd: FusionDefinition, scale=2.0) -> None:
    """A docstring."""
    T0 = fd.define_tensor(
        shape=[-1, 128],   # symbolic batch
        contiguity=[True, None],
        dtype=DataType.Half,
    )
    (T1, T2) = fd.ops.var_mean(T0, dims=[1], correction=1, keepdim=True,)
    [T3] = [fd.ops.neg(T1)]
    S4 = fd.define_scalar(0x10 * 2 ** -1 + .5 - 5. // 3 % 2, dtype=DataType.Int)
    T5 = fd.ops.mul(T3, S4); fd.add_output(T5)
    return None


def second(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor([2, 3], [True, True], DataType.Float)
    if not True and T0 != None:
        pass
    elif 1 <= 2:
        fd.add_output(T0)
    else:
        fd.add_output(fd.ops.abs(T0[0]))


if __name__ == "__main__":
    with FusionDefinition() as fd:
        first(fd)
    print(f"{fd}", r'\raw', b'\x00bytes', '''triple
quoted''')
