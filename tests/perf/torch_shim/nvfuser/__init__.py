"""A stand-in `nvfuser` module that runs FusionDefinition scripts with PyTorch.

Only for tests/perf/compare_torch.py: it lets the bundled example scripts
(resources/examples/*.py) run unchanged as PyTorch programs, so that FuserLab
can be compared with PyTorch eager and torch.compile on the same definitions.

A FusionDefinition records its definition as a list of nodes (no torch work
happens while defining); `fd.execute(inputs)` evaluates them with torch ops
and returns the outputs; `fd.function()` returns that evaluation as a plain
function of the inputs, for torch.compile. Every execute() is also appended to
`EXECUTIONS` as (definition function name, fd, inputs), so a driver can exec a
script and then time what it ran.

Semantics follow nvFuser where they differ from torch: broadcast_in_dim,
var_mean/welford, pad widths, iota, sdpfa_fwd's extra outputs. The scripts
cast bf16/f16 to float themselves, so arithmetic happens in the dtype the
script asks for.
"""

import enum
import math
import sys

import torch
import torch.nn.functional as F

__all__ = ["DataType", "FusionDefinition", "EXECUTIONS"]

#: Placeholder argument of factory ops, replaced by the inputs' device.
DEVICE = object()

#: (function name, FusionDefinition, inputs) for every fd.execute() call.
EXECUTIONS = []


class DataType(enum.Enum):
    Null = None
    Bool = torch.bool
    Int32 = torch.int32
    Int = torch.int64
    Half = torch.float16
    BFloat16 = torch.bfloat16
    Float = torch.float32
    Double = torch.float64
    ComplexFloat = torch.complex64
    ComplexDouble = torch.complex128


def torch_dtype(dtype):
    if dtype is None:
        return None
    if isinstance(dtype, DataType):
        return dtype.value
    if isinstance(dtype, torch.dtype):
        return dtype
    raise TypeError(f"nvfuser shim: not a DataType: {dtype!r}")


class Val:
    """A symbolic value of a definition: tensor, scalar or vector."""

    def __init__(self, fd, index, kind):
        self.fd = fd
        self.index = index
        self.kind = kind

    def shape(self):
        return self.fd._node(lambda t: list(t.shape), [self], "vector")

    def size(self, dim):
        return self.fd._node(lambda t: t.shape[dim], [self], "scalar")

    def ndim(self):
        return self.fd._node(lambda t: t.dim(), [self], "scalar")

    def __repr__(self):
        return f"{self.kind[0].upper()}{self.index}"


def _ev(env, x):
    """The runtime value of a node argument (Val, list of them, or constant)."""
    if isinstance(x, Val):
        return env[x.index]
    if isinstance(x, list):
        return [_ev(env, y) for y in x]
    if isinstance(x, tuple):
        return tuple([_ev(env, y) for y in x])
    return x


def _shape(v):
    return [int(s) for s in v]


# --- op implementations: runtime values in, runtime values out -------------

def _broadcast_in_dim(t, shape, broadcast_dims):
    shape = _shape(shape)
    view = [1] * len(shape)
    for src, dst in enumerate(broadcast_dims):
        view[dst] = t.shape[src]
    return t.reshape(view).expand(shape)


def _broadcast(t, is_broadcast_dim):
    view, src = [], 0
    for b in is_broadcast_dim:
        if b:
            view.append(1)
        else:
            view.append(t.shape[src])
            src += 1
    return t.reshape(view)


def _expand(t, shape):
    return t.expand(_shape(shape))


def _squeeze(t, dims):
    dims = sorted((d % t.dim() for d in dims), reverse=True)
    for d in dims:
        t = t.squeeze(d)
    return t


def _sum(t, dims, keepdim=False, dtype=DataType.Null):
    return torch.sum(t, dim=list(dims), keepdim=keepdim, dtype=torch_dtype(dtype))


def _max(t, dims, keepdim=False, dtype=DataType.Null):
    return torch.amax(t, dim=list(dims), keepdim=keepdim)


def _min(t, dims, keepdim=False, dtype=DataType.Null):
    return torch.amin(t, dim=list(dims), keepdim=keepdim)


def _var_mean(t, dims, correction=1, keepdim=False):
    """(variance, mean) as nvFuser orders them (torch.var_mean does too)."""
    return torch.var_mean(t, dim=list(dims), correction=int(correction), keepdim=keepdim)


def _welford(t, dims):
    """nvFuser's welford: (avg, M2 = sum of squared deviations, N)."""
    n = 1
    for d in dims:
        n *= t.shape[d]
    var, avg = torch.var_mean(t, dim=list(dims), correction=0)
    count = torch.full_like(var, n, dtype=torch.int64)
    return avg, var * n, count


def _cast(t, dtype):
    dtype = torch_dtype(dtype)
    if isinstance(t, torch.Tensor):
        return t.to(dtype)
    if dtype.is_floating_point:
        return float(t)
    if dtype == torch.bool:
        return bool(t)
    return int(t)


def _slice(t, start_indices, end_indices, strides=None):
    strides = strides or [1] * len(start_indices)
    index = tuple(slice(int(a), int(b), int(s))
                  for a, b, s in zip(start_indices, end_indices, strides))
    return t[index]


def _pad(t, pad_widths, value=0.0):
    # nvFuser's widths list the last dimension first, as F.pad does.
    widths = [int(w) for w in pad_widths]
    return F.pad(t, widths, value=float(value) if value is not None else 0.0)


def _iota(length, start=0, step=1, dtype=DataType.Int, device="cpu"):
    dtype = torch_dtype(dtype)
    return (torch.arange(int(length), dtype=torch.float64 if dtype.is_floating_point else torch.int64,
                         device=device) * step + start).to(dtype)


def _full(shape, fill_value, dtype, device="cpu"):
    return torch.full(_shape(shape), fill_value, dtype=torch_dtype(dtype), device=device)


def _linear(x, w, b=None):
    return F.linear(x, w, b)


def _torch_at_least(major, minor):
    try:
        version = tuple(int(p) for p in torch.__version__.split(".")[:2])
    except ValueError:
        return False
    return version >= (major, minor)


#: F.scaled_dot_product_attention with a scale argument (torch >= 2.1).
_SDPA_SCALE = hasattr(F, "scaled_dot_product_attention") and _torch_at_least(2, 1)


def _sdpfa_fwd(q, k, v, dropout_p=0.0, is_causal=False, scale=None):
    """(output, logsumexp [B, H, S] in float, philox seed, philox offset).

    The logsumexp is computed from explicit scores (torch has no public op
    that returns it), which the timing of this case includes."""
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    s = torch.matmul(q.float(), k.float().transpose(-2, -1)) * scale
    if is_causal:
        n, m = s.shape[-2], s.shape[-1]
        keep = torch.ones(n, m, dtype=torch.bool, device=s.device).tril()
        s = s.masked_fill(~keep, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    if _SDPA_SCALE and not dropout_p:
        out = F.scaled_dot_product_attention(q, k, v, is_causal=bool(is_causal), scale=scale)
    else:
        out = torch.matmul(torch.softmax(s, -1), v.float()).to(q.dtype)
    zero = torch.zeros((), dtype=torch.int64, device=q.device)
    return out, lse, zero, zero


def _where(c, a, b):
    if not isinstance(a, torch.Tensor):
        a = torch.tensor(a, device=c.device)
    if not isinstance(b, torch.Tensor):
        b = torch.tensor(b, device=c.device)
    return torch.where(c, a, b)


def _unary(fn):
    def apply(x):
        if isinstance(x, torch.Tensor):
            return fn(x)
        return fn(torch.tensor(x, dtype=torch.float64)).item()
    return apply


OPS = {
    # pointwise
    "abs": _unary(torch.abs), "neg": _unary(torch.neg), "exp": _unary(torch.exp),
    "log": _unary(torch.log), "log1p": _unary(torch.log1p), "erf": _unary(torch.erf),
    "tanh": _unary(torch.tanh), "sigmoid": _unary(torch.sigmoid), "relu": _unary(torch.relu),
    "silu": _unary(F.silu), "sqrt": _unary(torch.sqrt), "rsqrt": _unary(torch.rsqrt),
    "sin": _unary(torch.sin), "cos": _unary(torch.cos), "reciprocal": _unary(torch.reciprocal),
    "isnan": torch.isnan, "logical_not": torch.logical_not, "bitwise_not": torch.bitwise_not,
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b, "pow": lambda a, b: a ** b,
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
    "minimum": torch.minimum, "maximum": torch.maximum,
    "clamp": lambda x, lo, hi: torch.clamp(x, lo, hi),
    "lerp": lambda a, b, w: torch.lerp(a, b, w),
    "where": _where, "cast": _cast,
    # data movement
    "broadcast_in_dim": _broadcast_in_dim, "broadcast": _broadcast, "expand": _expand,
    "squeeze": _squeeze, "permute": lambda t, dims: t.permute(list(dims)),
    "reshape": lambda t, new_shape: t.reshape(_shape(new_shape)),
    "stride_order": lambda t, stride_order: t,  # a layout request; values unchanged
    "segment_set": lambda t: t, "set": lambda t: t,
    "slice": _slice, "pad": _pad, "cat": lambda tensors, dim: torch.cat(list(tensors), dim),
    "index_select": lambda t, index, dim: torch.index_select(t, dim, index),
    "take_along_axis": lambda t, index, dim: torch.take_along_dim(t, index, dim),
    "gather": lambda t, index, dim: torch.gather(t, dim, index),
    # reductions
    "sum": _sum, "max": _max, "min": _min, "var_mean": _var_mean, "welford": _welford,
    # factories
    "iota": _iota, "full": _full,
    # matmul / attention
    "matmul": torch.matmul, "linear": _linear, "sdpfa_fwd": _sdpfa_fwd,
}

#: Number of results of ops that return several values.
MULTI = {"var_mean": 2, "welford": 3, "sdpfa_fwd": 4}


#: Ops that create tensors: they get the device of the first tensor input.
FACTORIES = {"iota", "full"}


class _Ops:
    def __init__(self, fd):
        self._fd = fd

    def __getattr__(self, name):
        if name not in OPS:
            raise NotImplementedError(f"nvfuser shim: fd.ops.{name} is not translated to torch")
        fn = OPS[name]
        fd = self._fd

        def record(*args, **kwargs):
            if name in FACTORIES:
                kwargs = dict(kwargs, device=DEVICE)
            return fd._node(fn, args, "tensor", kwargs, MULTI.get(name, 1))
        return record


class FusionDefinition:
    def __init__(self):
        self._nodes = []      # (callable, args, kwargs, output indices)
        self._inputs = []     # value indices fed by execute()'s inputs
        self._outputs = []
        self._count = 0
        self.name = None
        self.ops = _Ops(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def _new(self, kind):
        v = Val(self, self._count, kind)
        self._count += 1
        return v

    def _note_name(self):
        if self.name is None:
            # The definition function (nvfuser_fusion_id0) is two frames up.
            frame = sys._getframe(2)
            self.name = frame.f_code.co_name

    def _node(self, fn, args, kind, kwargs=None, n_out=1):
        outs = [self._new(kind) for _ in range(n_out)]
        self._nodes.append((fn, list(args), dict(kwargs or {}), [o.index for o in outs]))
        return outs[0] if n_out == 1 else tuple(outs)

    # --- definition API -------------------------------------------------
    def define_tensor(self, shape=None, contiguity=None, dtype=DataType.Float, is_cpu=False,
                      stride_order=None, sizes=None, strides=None, symbolic_sizes=None, **_):
        self._note_name()
        v = self._new("tensor")
        self._inputs.append(v.index)
        return v

    def define_scalar(self, value=None, dtype=DataType.Double):
        self._note_name()
        if value is None:
            v = self._new("scalar")
            self._inputs.append(v.index)
            return v
        return self._node(lambda: _cast(value, dtype), [], "scalar")

    def define_vector(self, values, dtype=DataType.Int):
        self._note_name()
        return self._node(lambda *vs: [int(x) for x in vs], list(values), "vector")

    def define_constant(self, value, dtype=DataType.Double):
        return self.define_scalar(value, dtype)

    def add_output(self, val, *_, **__):  # stride_order / alias: layout only
        self._outputs.append(val.index)

    # --- running --------------------------------------------------------
    def function(self):
        """The definition as a function of its inputs (list of tensors and
        scalars) returning its outputs, for eager use and torch.compile."""
        nodes, inputs, outputs = list(self._nodes), list(self._inputs), list(self._outputs)

        def run(*values):
            if len(values) != len(inputs):
                raise ValueError(f"nvfuser shim: {len(values)} inputs, the definition has {len(inputs)}")
            env = dict(zip(inputs, values))
            device = "cpu"
            for v in values:  # a plain loop: torch.compile traces it as is
                if isinstance(v, torch.Tensor):
                    device = v.device
                    break
            for fn, args, kwargs, outs in nodes:
                kw = {k: (device if v is DEVICE else _ev(env, v)) for k, v in kwargs.items()}
                result = fn(*_ev(env, args), **kw)
                if len(outs) == 1:
                    env[outs[0]] = result
                else:
                    for i, r in zip(outs, result):
                        env[i] = r
            return [env[i] for i in outputs]
        return run

    def execute(self, inputs, **_):
        EXECUTIONS.append((self.name, self, list(inputs)))
        return self.function()(*inputs)
