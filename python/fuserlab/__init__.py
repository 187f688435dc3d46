"""fuserlab: FuserLab's fusion compiler from Python, with nvFuser's API.

    from fuserlab import FusionDefinition, DataType
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
        fd.add_output(fd.ops.sum(fd.ops.mul(t0, t0), dims=[1]))
    out, = fd.execute([x])   # numpy arrays: the CPU reference; torch CUDA tensors: the GPU

Every fd.define_* / fd.ops.* call goes through the C++ script reader's own
op table (core/frontend/fusion_builder.h), so names, keywords and errors are
the reader's. Inputs and outputs cross as DLPack.
"""
from ._definition import DataType, FusionDefinition, FuserLabError, Scalar, Tensor, Vector

__all__ = ["DataType", "FusionDefinition", "FuserLabError", "Scalar", "Tensor", "Vector"]
