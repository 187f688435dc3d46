#!/usr/bin/env python3
"""Times the benchmark suite's fusions (tests/perf/suite/*.py) with the real nvFuser.

The column this writes sits beside FuserLab's and torch.compile's (compare_torch.py
--suite) in docs/performance.md. Run it on the GPU machine after nvFuser's setup
(see shared/tools/nvfuser-peer/README.md):

    source PATH/nvfuser-peer/setup.sh PACKED_DIR      # then `import nvfuser_direct` works
    python3 tests/perf/nvfuser_peer.py [CASE ...] [--suite-dir DIR] [--samples N]
            [--warmup N] [--json PATH] [--markdown PATH]

Each suite script is written for the older frontend (`from nvfuser import
FusionDefinition, DataType`). It is executed as it stands with `nvfuser` mapped
to `nvfuser_direct` in sys.modules; the script's own last line, `fd.execute(inputs)`,
compiles the fusion. Then, per case (a case that fails prints "error: ..." and the
run goes on):

  * one more fd.execute(inputs): every floating output (and floating input, which
    an aliased output writes in place) must be finite -> "ok";
  * median_us: device time of one fd.execute with CUDA events, the protocol of
    compare_torch.py's Timer (warm-up, a 256 MB L2 flush written and read back
    before each sample, a ~0.5 ms GPU sleep so the events time the kernels and
    not the host's way to them, median of --samples);
  * kernels, kernel_us: from torch.profiler (CUPTI) over --profile-iters flushed
    executes: the kernels nvFuser launched per execute and the sum of their
    durations (median over the executes); kernel_span_us is first start to last
    end, the form of FuserLab's CUPTI column;
  * host_us: wall time of fd.execute without a sync (the fusion cached), median
    over --host-calls calls, the GPU idle before each.

JSON (--json, rewritten after every case so an interrupted run keeps what it
measured): a list of {case, ok, error, median_us, kernels, kernel_us, host_us}
plus sizes, kernel_span_us, memsets and first_run_s (the script's own run: input
creation, nvFuser's compile and first execute). Exit status 1 if any case failed.

No GPU-only module is imported before main() has parsed the arguments, so --help
works on a machine without torch.
"""

import argparse
import glob
import json
import os
import statistics
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(HERE, "suite")


def install_nvfuser_alias():
    """Imports nvfuser_direct and makes `import nvfuser` / `from nvfuser import ...`
    return it. Returns the module.

    nvfuser_direct is imported first: its __init__ warns when a module named
    `nvfuser` is already loaded. The alias wins over any `nvfuser` package on
    sys.path (the legacy frontend, or tests/perf/torch_shim's stand-in), since
    the import system looks in sys.modules first.

    Shims: none. Every call the suite's scripts make was checked against
    nvFuser's python/python_direct bindings at version 0.2.36 and takes the same
    names there:
      fd.define_tensor(shape=, contiguity=, dtype=, is_cpu=, stride_order=)
      fd.define_scalar(value, dtype=)  (value None: a symbolic scalar input)
      fd.add_output(t) and fd.add_output(t, alias_input=t0)  (an aliased output
        is not returned, as in the old frontend)
      fd.ops.{sum,max}(t, dims=, keepdim=, dtype=DataType.Null),
      fd.ops.var_mean(t, dims=, correction=, keepdim=) -> (var, mean),
      fd.ops.broadcast_in_dim(t, shape=, broadcast_dims=), fd.ops.cast(t, dtype=),
      fd.ops.slice(t, start_indices=, end_indices=, strides=), fd.ops.cat([..], dim=),
      fd.ops.permute(t, dims=), fd.ops.reshape(t, new_shape=),
      fd.ops.take_along_axis(t, idx, dim=), fd.ops.linear(a, b, bias),
      fd.ops.where / lerp / unary and binary ops with tensors or scalars,
      fd.execute(inputs) -> list of torch tensors.
    Should a later script use a call that differs, add the shim here (wrap
    nvfuser_direct.FusionDefinition in a subclass and alias a module holding it),
    and say why.
    """
    import nvfuser_direct  # noqa: F401  (GPU machine only: needs setup.sh)
    sys.modules["nvfuser"] = nvfuser_direct
    return nvfuser_direct


def suite_scripts(folder):
    return sorted(p for p in glob.glob(os.path.join(folder, "*.py"))
                  if os.path.basename(p) != "gen_suite.py")


def first_line(error):
    text = str(error).strip()
    line = text.splitlines()[0].strip() if text else ""
    return f"{type(error).__name__}: {line}" if line else type(error).__name__


def sizes_of(torch, inputs):
    return " ".join("x".join(str(s) for s in x.shape) if isinstance(x, torch.Tensor) else str(x)
                    for x in inputs)


class Timer:
    """compare_torch.py's Timer, reimplemented rather than imported: importing
    compare_torch puts tests/perf/torch_shim (its stand-in `nvfuser` module) on
    sys.path and imports it, and this script's `nvfuser` must be the real one.
    Keep the two in step: CUDA events, the 256 MB flush zeroed then read back,
    torch.cuda._sleep(1_000_000), warm-up, median."""

    SLEEP_CYCLES = 1_000_000  # ~0.5 ms

    def __init__(self, torch, warmup, samples):
        self.torch, self.warmup, self.samples = torch, warmup, samples
        # Larger than any L2 (H100: 50 MB, H200: 60 MB).
        self.flush = torch.empty(256 * 1024 * 1024, dtype=torch.int8, device="cuda")

    def flush_l2(self):
        self.flush.zero_()
        # Read it back: the flush's dirty lines are written back now, not while
        # the timed kernels run, and they start from a cold, clean L2.
        self.flush.sum(dtype=self.torch.int32)

    def __call__(self, fn):
        torch = self.torch
        for _ in range(self.warmup):
            fn()
        times = []
        for _ in range(self.samples):
            self.flush_l2()
            torch.cuda._sleep(self.SLEEP_CYCLES)
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) * 1000.0)  # ms -> us
        return statistics.median(times)


def host_time(torch, fn, calls):
    """Median wall time (us) of fn() without a sync, the GPU idle before each call
    (synchronized outside the timed span); the garbage collector off meanwhile."""
    import gc
    times = []
    gc.collect()
    gc.disable()
    try:
        for _ in range(calls):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            fn()
            t1 = time.perf_counter()
            times.append((t1 - t0) * 1e6)
        torch.cuda.synchronize()
    finally:
        gc.enable()
    return statistics.median(times)


# torch.cuda._sleep's kernel (aten/src/ATen/cuda/Sleep.cu): the profiled loop puts
# one before and one after each execute, so the kernels between a pair are
# nvFuser's, whatever their names (its own nvfuser_* kernels, ATen's for a
# segment it hands to ExprEval such as a matmul, a fill for a grid buffer).
MARKER = "spin_kernel"


def profile_kernels(torch, timer, fn, iters):
    """(kernels per execute, median summed kernel us, median span us, memsets per
    execute, note) from torch.profiler's trace of `iters` executes, each after
    an L2 flush and between two GPU-sleep marker kernels."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            timer.flush_l2()
            torch.cuda._sleep(Timer.SLEEP_CYCLES)
            fn()
            torch.cuda._sleep(1000)
            torch.cuda.synchronize()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace.json")
        prof.export_chrome_trace(path)
        with open(path) as fh:
            trace = json.load(fh)
    events = trace.get("traceEvents", trace) if isinstance(trace, dict) else trace
    gpu = sorted((e for e in events if isinstance(e, dict) and e.get("ph") == "X"
                  and str(e.get("cat", "")).lower() in ("kernel", "gpu_memset")),
                 key=lambda e: float(e.get("ts", 0)))
    windows, current, inside = [], None, False
    for e in gpu:
        is_kernel = str(e.get("cat", "")).lower() == "kernel"
        if is_kernel and MARKER in str(e.get("name", "")):
            inside = not inside
            if inside:
                current = []
            else:
                windows.append(current)
            continue
        if inside:
            current.append(e)
    if len(windows) != iters:
        return None, None, None, None, (f"profiler: {len(windows)} marked executes of {iters} "
                                        f"(no '{MARKER}' kernels in the trace?)")
    counts, sums, spans, memsets = [], [], [], []
    for w in windows:
        kernels = [e for e in w if str(e.get("cat", "")).lower() == "kernel"]
        counts.append(len(kernels))
        memsets.append(len(w) - len(kernels))
        sums.append(sum(float(e.get("dur", 0)) for e in kernels))
        spans.append(max(float(e["ts"]) + float(e.get("dur", 0)) for e in kernels)
                     - min(float(e["ts"]) for e in kernels) if kernels else 0.0)
    note = None
    if len(set(counts)) > 1:
        note = f"profiler: kernels per execute varied {sorted(set(counts))}"
    return (statistics.median_low(counts), statistics.median(sums), statistics.median(spans),
            statistics.median_low(memsets), note)


def check_finite(torch, outputs, inputs):
    """None if every floating tensor among the outputs and inputs is finite, else why."""
    for label, values in (("output", outputs), ("input", inputs)):
        for i, x in enumerate(values):
            if isinstance(x, torch.Tensor) and (x.is_floating_point() or x.is_complex()):
                if x.numel() and not bool(torch.isfinite(x).all()):
                    return f"{label} {i} ({str(x.dtype).replace('torch.', '')}) has non-finite values"
    return None


def fmt(x, spec=".1f"):
    return "-" if x is None else format(x, spec)


HEAD = (f"{'fusion':34s} {'status':8s} {'nvFuser us':>10s} {'kernels':>7s} "
        f"{'kernel us':>9s} {'span us':>8s} {'host us':>8s} {'first s':>7s}")


def row_line(r):
    status = "ok" if r["ok"] else "error"
    return (f"{r['case']:34s} {status:8s} {fmt(r['median_us']):>10s} {fmt(r['kernels'], 'd'):>7s} "
            f"{fmt(r['kernel_us']):>9s} {fmt(r.get('kernel_span_us')):>8s} "
            f"{fmt(r['host_us'], '.1f'):>8s} {fmt(r.get('first_run_s'), '.2f'):>7s}")


def write_json(path, rows):
    with open(path, "w") as fh:
        json.dump(rows, fh, indent=1)


def write_markdown(path, environment, rows):
    out = [f"nvFuser {environment['nvfuser']} (nvfuser_direct), {environment['gpu']}, "
           f"torch {environment['torch']} (CUDA {environment['cuda']}), {environment['date']}, "
           f"median of {environment['samples']} samples, L2 flushed "
           f"(tests/perf/nvfuser_peer.py).", "",
           "| fusion | sizes | nvFuser us | kernels | kernels us (profiler, sum) | "
           "kernels span us | host us/execute | status |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        status = "ok" if r["ok"] else "error: " + (r["error"] or "").replace("|", "\\|")
        out.append(f"| {r['case']} | {r.get('sizes') or '-'} | {fmt(r['median_us'])} "
                   f"| {fmt(r['kernels'], 'd')} | {fmt(r['kernel_us'])} "
                   f"| {fmt(r.get('kernel_span_us'))} | {fmt(r['host_us'])} | {status} |")
    with open(path, "w") as fh:
        fh.write("\n".join(out) + "\n")


def run_case(torch, path, args, timer):
    """One suite script: the row (see the module's docstring)."""
    case = os.path.splitext(os.path.basename(path))[0]
    row = {"case": case, "ok": False, "error": None, "median_us": None, "kernels": None,
           "kernel_us": None, "host_us": None, "sizes": None, "kernel_span_us": None,
           "memsets": None, "first_run_s": None}
    namespace = {"__name__": "__nvfuser_peer__", "__file__": path}
    try:
        with open(path) as fh:
            source = fh.read()
        t0 = time.perf_counter()
        # The script defines fd, builds `inputs` and runs fd.execute(inputs) once:
        # nvFuser segments, schedules and compiles here.
        exec(compile(source, path, "exec"), namespace)
        torch.cuda.synchronize()
        row["first_run_s"] = time.perf_counter() - t0
        fd, inputs = namespace.get("fd"), namespace.get("inputs")
        if fd is None or not isinstance(inputs, list):
            raise RuntimeError("the script left no `fd` and `inputs` list to time")
        row["sizes"] = sizes_of(torch, inputs)

        def execute():
            return fd.execute(inputs)

        outputs = execute()
        torch.cuda.synchronize()
        bad = check_finite(torch, list(outputs), inputs)
        del outputs
        if bad:
            raise RuntimeError(bad)
        row["median_us"] = timer(execute)
        row["host_us"] = host_time(torch, execute, args.host_calls)
        if args.profile_iters > 0:
            try:
                kernels, ksum, kspan, memsets, note = profile_kernels(
                    torch, timer, execute, args.profile_iters)
                row.update(kernels=kernels, kernel_us=ksum, kernel_span_us=kspan, memsets=memsets)
                if note:
                    print(f"{case:34s} {note}", flush=True)
            except Exception as error:  # the profile is optional: keep the timing
                print(f"{case:34s} profiler failed: {first_line(error)}", flush=True)
        row["ok"] = True
    except Exception as error:  # one broken case must not stop the run
        row["error"] = first_line(error)
        traceback.print_exc(limit=4, file=sys.stdout)
    finally:
        namespace.clear()  # drop the case's tensors and FusionExecutorCache
    return row


def release(torch):
    """Frees the last case's memory (its tensors are gone once run_case returned)."""
    try:
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
    except Exception:  # a sticky CUDA error: the later cases will say so
        pass


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        epilog="Needs the GPU machine with nvFuser set up: "
               "source shared/tools/nvfuser-peer/setup.sh PACKED_DIR.")
    parser.add_argument("cases", nargs="*", metavar="CASE",
                        help="suite case names (script names without .py; default: all)")
    parser.add_argument("--suite-dir", default=SUITE, metavar="DIR",
                        help="folder of FusionDefinition scripts (default: tests/perf/suite)")
    parser.add_argument("--samples", type=int, default=30, help="timed samples (median)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed executes first")
    parser.add_argument("--host-calls", type=int, default=100,
                        help="executes timed on the host (median)")
    parser.add_argument("--profile-iters", type=int, default=10,
                        help="flushed executes under torch.profiler for the kernel "
                             "count and time (0: skip)")
    parser.add_argument("--json", metavar="PATH", help="write the rows as JSON after every case")
    parser.add_argument("--markdown", metavar="PATH", help="write the table as markdown")
    args = parser.parse_args()
    if args.samples < 1 or args.warmup < 0 or args.host_calls < 1 or args.profile_iters < 0:
        parser.error("--samples and --host-calls must be positive, --warmup and "
                     "--profile-iters not negative")

    scripts = suite_scripts(args.suite_dir)
    known = {os.path.splitext(os.path.basename(p))[0]: p for p in scripts}
    unknown = [c for c in args.cases if c not in known]
    if unknown:
        parser.error(f"no such case in {args.suite_dir}: {' '.join(unknown)}")
    if args.cases:
        scripts = [known[c] for c in dict.fromkeys(args.cases)]
    if not scripts:
        parser.error(f"no *.py scripts in {args.suite_dir}")

    import torch  # GPU machine only from here on
    if not torch.cuda.is_available():
        print("nvfuser_peer.py: no CUDA device", file=sys.stderr)
        return 2
    nvfuser_direct = install_nvfuser_alias()
    version = nvfuser_direct.version() if hasattr(nvfuser_direct, "version") else "?"
    environment = {"nvfuser": str(version), "gpu": torch.cuda.get_device_name(0),
                   "torch": torch.__version__, "cuda": torch.version.cuda,
                   "date": time.strftime("%Y-%m-%d"), "samples": args.samples}
    print(f"nvFuser {environment['nvfuser']}, torch {environment['torch']} "
          f"(CUDA {environment['cuda']}), {environment['gpu']}; {len(scripts)} cases, "
          f"median of {args.samples} samples after {args.warmup} warm-up", flush=True)

    timer = Timer(torch, args.warmup, args.samples)
    rows = []
    for path in scripts:
        row = run_case(torch, path, args, timer)
        release(torch)
        rows.append(row)
        if row["ok"]:
            print(row_line(row), flush=True)
        else:
            print(f"{row['case']:34s} error: {row['error']}", flush=True)
        if args.json:
            write_json(args.json, rows)
        if args.markdown:
            write_markdown(args.markdown, environment, rows)

    print()
    print(HEAD)
    print("-" * len(HEAD))
    for r in rows:
        print(row_line(r) if r["ok"] else f"{r['case']:34s} error: {r['error']}")
    failed = [r["case"] for r in rows if not r["ok"]]
    print(f"{len(rows) - len(failed)} ok, {len(failed)} failed"
          + (": " + " ".join(failed) if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
