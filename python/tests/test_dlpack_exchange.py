"""The DLPack C exchange table (`__dlpack_c_exchange_api__`, what torch >= 2.10
puts on torch.Tensor): a producer written here with ctypes over numpy, so CI
checks without torch that execute converts inputs and makes outputs by the
table's C calls, asks it for the stream, and runs them."""
import ctypes

import numpy as np

from fuserlab import DataType, FusionDefinition


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [
    ("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER),
    ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]

FROM_PY = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                           ctypes.POINTER(ctypes.POINTER(DLManagedTensorVersioned)))
TO_PY = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(DLManagedTensorVersioned),
                         ctypes.POINTER(ctypes.c_void_p))
VIEW = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(DLTensor))
STREAM = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int32, ctypes.c_int32,
                          ctypes.POINTER(ctypes.c_void_p))


class DLPackExchangeAPI(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("prev_api", ctypes.c_void_p),
                ("managed_tensor_allocator", ctypes.c_void_p),
                ("managed_tensor_from_py_object_no_sync", FROM_PY),
                ("managed_tensor_to_py_object_no_sync", TO_PY),
                ("dltensor_from_py_object_no_sync", VIEW),
                ("current_work_stream", STREAM)]


class Producer:
    """A tensor type whose values are float32 numpy arrays, with the table."""
    calls = {"view": 0, "to_py": 0, "stream": 0}
    keep = []  # shapes handed out as views stay alive

    def __init__(self, array):
        self.array = np.ascontiguousarray(array, dtype=np.float32)


def _view(py_object, out):
    Producer.calls["view"] += 1
    array = ctypes.cast(py_object, ctypes.py_object).value.array
    shape = (ctypes.c_int64 * array.ndim)(*array.shape)
    Producer.keep.append(shape)
    out[0] = DLTensor(array.ctypes.data, DLDevice(1, 0), array.ndim, DLDataType(2, 32, 1),
                      shape, None, 0)
    return 0


def _to_py(managed, out):
    Producer.calls["to_py"] += 1
    t = managed[0].dl_tensor
    assert (t.device.device_type, t.dtype.code, t.dtype.bits) == (1, 2, 32)
    shape = [t.shape[i] for i in range(t.ndim)]
    count = int(np.prod(shape)) if shape else 1
    data = np.ctypeslib.as_array(ctypes.cast(t.data, ctypes.POINTER(ctypes.c_float)), (count,))
    result = Producer(data.reshape(shape).copy())
    managed[0].deleter(managed)  # copied: FuserLab's buffer is freed now
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(result))
    out[0] = id(result)
    return 0


def _stream(device_type, device_id, out):
    Producer.calls["stream"] += 1
    out[0] = None
    return 0


def _unused(py_object, out):
    return -1


_functions = [FROM_PY(_unused), TO_PY(_to_py), VIEW(_view), STREAM(_stream)]
_api = DLPackExchangeAPI(DLPackVersion(1, 2), None, None, *_functions)
ctypes.pythonapi.PyCapsule_New.restype = ctypes.py_object
ctypes.pythonapi.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
_name = ctypes.create_string_buffer(b"dlpack_exchange_api")  # the capsule keeps the pointer
Producer.__dlpack_c_exchange_api__ = ctypes.pythonapi.PyCapsule_New(
    ctypes.addressof(_api), ctypes.addressof(_name), None)


def test_inputs_and_outputs_cross_by_the_exchange_table():
    with FusionDefinition() as fd:
        a = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
        b = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
        fd.add_output(fd.ops.mul(a, fd.ops.broadcast_in_dim(b, shape=a.shape(),
                                                            broadcast_dims=[1])))
        fd.add_output(fd.ops.sum(a, dims=[1]))
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((6, 10)) + 0.5).astype(np.float32)
    w = (rng.standard_normal(10) + 0.5).astype(np.float32)
    before = dict(Producer.calls)
    product, total = fd.execute([Producer(x), Producer(w)])
    assert isinstance(product, Producer) and isinstance(total, Producer)
    np.testing.assert_allclose(product.array, x * w, rtol=1e-6)
    np.testing.assert_allclose(total.array, x.sum(1), rtol=1e-5, atol=1e-5)
    assert Producer.calls["view"] - before["view"] == 2
    assert Producer.calls["to_py"] - before["to_py"] == 2
    assert fd.stats()["exchange_api_executes"] == 1
    # numpy arrays have no table: the DLPack capsule path, as before.
    product, _ = fd.execute([x, w])
    assert isinstance(product, np.ndarray)
    assert fd.stats()["exchange_api_executes"] == 1
