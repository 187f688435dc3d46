"""A numpy stand-in for the few torch calls repro inputs blocks make
(randn, rand, randint, ones, zeros, full, testing.make_tensor,
.as_strided), for `python -m fuserlab run` where PyTorch is not installed.
Tensors live on the CPU whatever device= says; bfloat16 has no numpy dtype."""
import types

import numpy as np

float16, float32, float64 = np.float16, np.float32, np.float64
half, float, double = np.float16, np.float32, np.float64  # noqa: A001
int32, int64, long, bool = np.int32, np.int64, np.int64, np.bool_  # noqa: A001


class bfloat16:  # noqa: N801 - torch's name
    """Not available without torch."""


class Tensor(np.ndarray):
    def as_strided(self, size, stride, storage_offset=0):
        base = np.ascontiguousarray(self).reshape(-1)[storage_offset:]
        view = np.lib.stride_tricks.as_strided(
            base, shape=tuple(size), strides=tuple(s * base.itemsize for s in stride))
        return view.view(Tensor)

    def cuda(self, *args, **kwargs):
        return self

    def to(self, *args, **kwargs):
        return self


def _make(values, dtype):
    if dtype is bfloat16:
        raise TypeError("bfloat16 needs PyTorch: install torch to run this repro")
    return np.asarray(values, dtype=dtype or np.float32).view(Tensor)


def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(size)


_rng = np.random.default_rng(0)


def randn(*size, dtype=None, device=None, **kwargs):
    return _make(_rng.standard_normal(_size(size)), dtype)


def rand(*size, dtype=None, device=None, **kwargs):
    return _make(_rng.random(_size(size)), dtype)


def ones(*size, dtype=None, device=None, **kwargs):
    return _make(np.ones(_size(size)), dtype)


def zeros(*size, dtype=None, device=None, **kwargs):
    return _make(np.zeros(_size(size)), dtype)


def full(size, fill_value, dtype=None, device=None, **kwargs):
    return _make(np.full(tuple(size), fill_value), dtype)


def randint(*args, size=None, dtype=None, device=None, **kwargs):
    low, high = (0, args[0]) if len(args) < 3 and size is None and len(args) == 2 else args[:2]
    if size is None:
        size = args[-1]
    return _make(_rng.integers(low, high, tuple(size)), dtype or np.int64)


def _make_tensor(*size, dtype=None, device=None, low=None, high=None, **kwargs):
    low = -9 if low is None else low
    high = 9 if high is None else high
    return _make(_rng.uniform(low, high, _size(size)), dtype)


testing = types.ModuleType("torch.testing")
testing.make_tensor = _make_tensor
testing.assert_close = lambda a, b, **kw: np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
