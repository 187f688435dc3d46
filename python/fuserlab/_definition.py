"""FusionDefinition with the API of nvfuser_direct.FusionDefinition (and the
older nvfuser module's spellings, which the reader also takes)."""
import json
import sys

from ._native import native

DataType = native.DataType
FuserLabError = native.FuserLabError


def _where(depth=3):
    """file:line of the user's call, for error messages."""
    try:
        frame = sys._getframe(depth)
        return f"{frame.f_code.co_filename}:{frame.f_lineno}"
    except ValueError:  # pragma: no cover
        return ""


class Tensor:
    """A value of the fusion being defined: a tensor or a scalar."""

    __slots__ = ("_fd", "_fl_handle")

    def __init__(self, fd, handle):
        self._fd = fd
        self._fl_handle = handle

    def _info(self):
        return self._fd._session.value_info(self._fl_handle)

    @property
    def name(self):
        return self._info()[0]

    def is_tensor(self):
        return self._info()[1]

    @property
    def ndim(self):
        return self._info()[3]

    def dtype(self):
        return self._info()[2]

    def size(self, dim):
        return self._fd._session.tensor_method(self._fl_handle, "size", (dim,), _where(2))

    def shape(self):
        return self._fd._session.tensor_method(self._fl_handle, "shape", (), _where(2))

    def __repr__(self):
        name, is_tensor, dtype, rank = self._info()
        kind = f"Tensor rank {rank}" if is_tensor else "Scalar"
        return f"<fuserlab {kind} {name} {dtype.name}>"

    def _binary(self, op, other, reflected=False):
        lhs, rhs = (other, self) if reflected else (self, other)
        return self._fd._session.binary_operator(op, lhs, rhs, _where(3))

    def __add__(self, o): return self._binary("+", o)
    def __radd__(self, o): return self._binary("+", o, True)
    def __sub__(self, o): return self._binary("-", o)
    def __rsub__(self, o): return self._binary("-", o, True)
    def __mul__(self, o): return self._binary("*", o)
    def __rmul__(self, o): return self._binary("*", o, True)
    def __truediv__(self, o): return self._binary("/", o)
    def __rtruediv__(self, o): return self._binary("/", o, True)
    def __floordiv__(self, o): return self._binary("//", o)
    def __mod__(self, o): return self._binary("%", o)
    def __pow__(self, o): return self._binary("**", o)
    def __rpow__(self, o): return self._binary("**", o, True)
    def __lt__(self, o): return self._binary("<", o)
    def __le__(self, o): return self._binary("<=", o)
    def __gt__(self, o): return self._binary(">", o)
    def __ge__(self, o): return self._binary(">=", o)
    def __and__(self, o): return self._binary("&", o)
    def __or__(self, o): return self._binary("|", o)
    def __xor__(self, o): return self._binary("^", o)
    def __neg__(self): return self._fd._session.unary_operator("-", self, _where(2))
    def __invert__(self): return self._fd._session.unary_operator("~", self, _where(2))


Scalar = Tensor
Vector = list


class _Ops:
    """fd.ops: any name is looked up in the reader's op table at the call;
    an unknown op is a FuserLabError naming it."""

    def __init__(self, fd):
        self._fd = fd

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        session = self._fd._session

        def op(*args, **kwargs):
            return session.call_op(name, args, kwargs, _where(2))

        op.__name__ = name
        return op


_TORCH_CALLS = {}


def _torch_calls(torch):
    """(torch.Tensor, torch's C-level import of a DLPack capsule, the current
    raw CUDA stream of a device, the current device), looked up once per torch
    module; None for the numpy stand-in python -m fuserlab installs without
    torch (it has no _C). The C-level calls skip the Python that
    torch.from_dlpack and torch.cuda.current_stream() wrap around them."""
    key = id(torch)
    if key not in _TORCH_CALLS:
        c = getattr(torch, "_C", None)
        _TORCH_CALLS[key] = None if c is None else (
            torch.Tensor,
            getattr(c, "_from_dlpack", None) or torch.from_dlpack,
            getattr(c, "_cuda_getCurrentRawStream", None),
            getattr(c, "_cuda_getDevice", None))
    return _TORCH_CALLS[key]


def _on_legacy_default_stream(calls):
    """Whether torch's current CUDA stream is the legacy default stream, the
    one FuserLab launches on."""
    _, _, raw_stream, current_device = calls
    try:
        return raw_stream(current_device()) == 0
    except Exception:  # no CUDA, or a torch without these: wait for the GPU
        return False


class FusionDefinition:
    """nvfuser_direct.FusionDefinition's API on FuserLab.

    Keyword options: upcast ("privatize" | "forward"), bookend ("none" |
    "outputs" | "inputs_and_outputs"), disable_passes (a list of pass names),
    device (a built-in device such as "h100" for what-if compiles),
    dependent_launch and graph_launch ("on" | "off")."""

    def __init__(self, **options):
        self._session = native.FusionSession(lambda handle: Tensor(self, handle))
        self.ops = _Ops(self)
        self._built = False
        if options:
            self.set_options(**options)

    # -- defining -----------------------------------------------------------
    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self._built = True
        return False

    def _fd_call(self, name, args, kwargs):
        return self._session.call_fd(name, tuple(args), dict(kwargs), _where(3))

    def define_tensor(self, *args, **kwargs):
        return self._fd_call("define_tensor", args, kwargs)

    def define_scalar(self, *args, **kwargs):
        return self._fd_call("define_scalar", args, kwargs)

    def define_vector(self, *args, **kwargs):
        return self._fd_call("define_vector", args, kwargs)

    def add_output(self, *args, **kwargs):
        return self._fd_call("add_output", args, kwargs)

    def definition(self):
        """Overridden by subclasses (the older nvfuser style)."""

    def _ensure_defined(self):
        if not self._built and type(self).definition is not FusionDefinition.definition:
            self.definition()
        self._built = True

    # -- options ------------------------------------------------------------
    def set_options(self, **options):
        self._session.set_options({k: v for k, v in options.items()})

    # -- running ------------------------------------------------------------
    def execute(self, inputs, *, synchronize=None, **kwargs):
        """Runs on `inputs` (numpy arrays: the CPU reference backend; torch
        CUDA tensors: the GPU, zero-copy; Python numbers for scalars).
        Returns the outputs as torch tensors when any input is one, else as
        numpy arrays. A second call with the same input signature reuses
        the compiled fusion and kernels (stats() counts compiles).

        On the GPU the call returns once the kernels are queued, as a
        PyTorch op does, when torch's current stream is the legacy default
        stream (FuserLab's launches go there, so torch's later work on it
        sees the outputs); under another stream, or with synchronize=True,
        it returns once they are done."""
        if not self._built:
            self._ensure_defined()
        if type(inputs) is not list:
            inputs = list(inputs)
        # Tensors of a framework with a DLPack exchange table (torch >= 2.10)
        # cross by its C calls, stream query included, all inside one call.
        outputs = self._session.execute_exchange(inputs, synchronize)
        if outputs is not None:
            return outputs
        torch = sys.modules.get("torch")
        calls = None if torch is None else _torch_calls(torch)
        if calls is not None:
            tensor_type = calls[0]
            for x in inputs:
                if isinstance(x, tensor_type):
                    if synchronize is None:
                        synchronize = not _on_legacy_default_stream(calls)
                    from_dlpack = calls[1]
                    return [from_dlpack(c)
                            for c in self._session.execute(inputs, bool(synchronize), True)]
        outputs = self._session.execute(inputs, True, False)
        import numpy
        return [numpy.from_dlpack(o) for o in outputs]

    def stats(self):
        """{'compiles': ..., 'executes': ..., 'gpu_kernels_built': ...}."""
        return self._session.stats()

    # -- inspecting ---------------------------------------------------------
    def report(self, inputs=None):
        """The compile report (the JSON FuserLab's CLI and GUI read) as a
        dict: for `inputs` if given, else of the last execute."""
        self._ensure_defined()
        if inputs is not None:
            return json.loads(self._session.compile(list(inputs)))
        text = self._session.report_json()
        if text is None:
            raise FuserLabError("no compile yet: pass inputs, or execute first")
        return json.loads(text)

    def segments(self, inputs=None):
        """Each segment: id, scheduler, params, properties, and every
        scheduler that refused it with the reason."""
        return self.report(inputs)["segments"]

    def cuda_code(self, segment=0, inputs=None):
        """The generated CUDA of segment `segment` (no GPU needed)."""
        if inputs is not None:
            self.report(inputs)
        return self._session.cuda_code(segment)

    def segment_script(self, segment, inputs=None):
        """Segment `segment` as a standalone script with its own inputs."""
        if inputs is not None:
            self.report(inputs)
        return self._session.segment_script(segment)

    def repro_script(self, inputs):
        """The fusion as an nvFuser repro script with an inputs block at the
        inputs' dtypes, sizes and strides."""
        self._ensure_defined()
        return self._session.repro_script(list(inputs))

    def fusion_ir(self):
        return self._session.fusion_ir()

    def __repr__(self):
        return self.fusion_ir()
