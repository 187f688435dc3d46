#!/usr/bin/env python3
"""FuserLab's cubins and torch.compile's Triton kernels, timed in one process.

compare_torch.py times torch.compile in its own process and `fuserlab-cli
bench` in another; on kernels of a few microseconds the two timers' sub-us
differences (the process, the allocations, the host) are as large as the
kernels' own. This harness loads cubins that `fuserlab-cli compile FILE
--out DIR` wrote (or hand-edited copies, built with nvrtc_cubin) through
the driver API, and times them with compare_torch.py's Timer (256 MB flush
written and read back, 1 ms GPU sleep, CUDA events) beside the
torch.compile'd definition on the same inputs, alternating, several rounds.
Each cubin's outputs are checked against eager first.

A kernel's parameters are taken to be the fusion's tensor inputs in order,
then its outputs (a single-segment pointwise fusion without scalars), each
an fl::Tensor<T, R>: the data pointer, R int64 sizes, R int64 strides.

Not run by CI; on a GPU machine with PyTorch:
    python3 tests/perf/harness/kernels_vs_triton.py EXAMPLE[.FUNCTION] \
        LABEL:CUBIN:KERNEL:GRID:BLOCK ... [--rounds N] [--samples N]
(GRID and BLOCK: X or XxY, as `fuserlab-cli compile` reports them.)
EXAMPLE is a name under resources/examples (or a path to a script).
"""

import argparse
import ctypes
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import compare_torch as ct  # noqa: E402
import torch  # noqa: E402


def driver():
    cuda = ctypes.CDLL("libcuda.so.1")
    for name in ("cuModuleLoadData", "cuModuleGetFunction", "cuLaunchKernel"):
        getattr(cuda, name).restype = ctypes.c_int
    return cuda


def check(rc, what):
    if rc != 0:
        raise RuntimeError(f"{what}: CUDA driver error {rc}")


def tensor_struct(t):
    """An fl::Tensor<T, R> by value for tensor t."""
    rank = t.dim()

    class Tensor(ctypes.Structure):
        _fields_ = [("data", ctypes.c_void_p),
                    ("size", ctypes.c_int64 * rank),
                    ("stride", ctypes.c_int64 * rank)]

    s = Tensor()
    s.data = t.data_ptr()
    for i in range(rank):
        s.size[i] = t.shape[i]
        s.stride[i] = t.stride(i)
    return s


class Cubin:
    def __init__(self, cuda, spec):
        fields = spec.split(":")
        if len(fields) != 5:
            raise SystemExit(f"expected LABEL:CUBIN:KERNEL:GRID:BLOCK, got {spec}")
        self.label, path, kernel, grid, block = fields
        self.cuda = cuda
        with open(path, "rb") as fh:
            self.image = fh.read()
        module = ctypes.c_void_p()
        check(cuda.cuModuleLoadData(ctypes.byref(module), self.image), f"loading {path}")
        self.function = ctypes.c_void_p()
        check(cuda.cuModuleGetFunction(ctypes.byref(self.function), module, kernel.encode()),
              f"kernel {kernel} in {path}")
        # GRID and BLOCK: X or XxY.
        self.grid = ([int(g) for g in grid.split("x")] + [1, 1])[:3]
        self.block = ([int(b) for b in block.split("x")] + [1, 1])[:3]

    def bind(self, tensors):
        """A callable that launches the kernel on tensors (inputs, then outputs)."""
        structs = [tensor_struct(t) for t in tensors]
        params = (ctypes.c_void_p * len(structs))(
            *[ctypes.cast(ctypes.pointer(s), ctypes.c_void_p) for s in structs])

        def launch(*_):
            stream = torch.cuda.current_stream().cuda_stream
            check(self.cuda.cuLaunchKernel(self.function, *self.grid, *self.block, 0,
                                           ctypes.c_void_p(stream), params, None),
                  f"launching {self.label}")
        launch.keep = (structs, params)
        return launch


def find_case(name):
    example, _, function = name.partition(".")
    path = example if os.path.exists(example) else os.path.join(ct.EXAMPLES, example + ".py")
    cases = ct.script_cases(path, "cuda")
    for case, _, fn, fd, inputs in cases:
        if not function or fn == function:
            return case, fd, inputs
    raise SystemExit(f"no fusion {function} in {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("example")
    parser.add_argument("cubins", nargs="+")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--samples", type=int, default=50)
    args = parser.parse_args()

    case, fd, inputs = find_case(args.example)
    function = fd.function()
    expected = function(*inputs)
    expected = list(expected) if isinstance(expected, (list, tuple)) else [expected]
    compiled = torch.compile(function)
    compiled(*inputs)
    cuda = driver()
    tensors = [x for x in inputs if isinstance(x, torch.Tensor)]
    kernels = []
    for spec in args.cubins:
        cubin = Cubin(cuda, spec)
        outputs = [torch.full_like(e, float("nan")) if e.is_floating_point() else
                   torch.zeros_like(e) for e in expected]
        launch = cubin.bind(tensors + outputs)
        launch()
        torch.cuda.synchronize()
        worst = []
        for got, want in zip(outputs, expected):
            ok, err, what = ct.compare(got, want)
            worst.append(f"{what} {err:.1e}{'' if ok else ' WRONG'}")
        print(f"{cubin.label:16s} check: {', '.join(worst)}", flush=True)
        kernels.append((cubin.label, launch))
    kernels.append(("torch.compile", compiled))

    print(f"{torch.cuda.get_device_name()}: {case}, median of {args.samples} samples (us)")
    timer = ct.Timer(warmup=5, samples=args.samples)
    times = {label: [] for label, _ in kernels}
    for round_ in range(args.rounds):
        line = []
        for label, launch in kernels:
            us = timer(launch, inputs)
            times[label].append(us)
            line.append(f"{label} {us:.2f}")
        print(f"round {round_}: " + "  ".join(line), flush=True)
    for label, values in times.items():
        print(f"{label:16s} median over rounds {statistics.median(values):.2f} us")


if __name__ == "__main__":
    main()
