#!/usr/bin/env python3
"""Compares FuserLab with PyTorch eager and torch.compile on the bundled examples.

Each example (resources/examples/*.py, an nvFuser FusionDefinition script) is
executed with the stand-in `nvfuser` module of tests/perf/torch_shim, which
runs the definition with PyTorch ops. For every fusion the script executes
(a "case": NAME, or NAME.FUNCTION where a script has several definitions):

  * eager and torch.compile'd versions of the definition are run on the
    script's inputs and checked to agree (tolerance by output dtype);
  * on a GPU both are timed with CUDA events (warm-up, L2 flushed before each
    sample, median of --samples), and with --cli, `CLI bench FILE --json J`
    gives FuserLab's median; one table is printed at the end;
  * with --cli, FuserLab's outputs (`CLI run FILE --backend cuda --seed 1`
    with --save-inputs/--save-outputs; --fuserlab-backend) are checked
    against eager run on FuserLab's inputs: the three agree;
  * with --check-against DIR, the eager outputs are also compared with
    FuserLab's CPU-reference outputs saved by
        fuserlab-cli run FILE --seed 1 --save-inputs DIR/CASE/in --save-outputs DIR/CASE/out
    (tests/reference/run_examples.sh CLI DIR writes them all), computed from
    those saved inputs instead of the script's.

Without CUDA it runs on the CPU for correctness only (no timing table).
Without torch.compile (torch < 2), the compiled column is skipped.

With --suite the cases are the benchmark suite's (tests/perf/suite/*.py)
instead of the bundled examples, with --heldout the held-out sizes'
(tests/perf/heldout/*.py); --json and --markdown write the table
(the JSON after every case, so an interrupted run keeps what it measured).
The end of the table says which of issue 6's targets the run meets
(perf_targets.py).

Usage:
    compare_torch.py [CASE ...] [--suite | --heldout] [--cli PATH] [--json PATH] [--markdown PATH]
                     [--fuserlab-backend cuda|cpu|none]
                     [--check-against DIR]
                     [--samples N] [--warmup N] [--no-compile] [--device cpu|cuda]
Exit status 1 if any check failed.
"""

import argparse
import glob
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
EXAMPLES = os.path.join(ROOT, "resources", "examples")
SUITE = os.path.join(HERE, "suite")
HELDOUT = os.path.join(HERE, "heldout")
sys.path.insert(0, os.path.join(HERE, "torch_shim"))
sys.path.insert(0, os.path.join(ROOT, "tests", "reference"))

import torch  # noqa: E402
import nvfuser  # noqa: E402  (the shim)
import perf_targets  # noqa: E402  (issue 6's targets, judged on the rows)

# (rtol, atol) by dtype; integers and bools compare exactly. Reductions and
# bf16 roundings legitimately differ between summation orders and backends.
TOLERANCES = {
    torch.bfloat16: (2e-2, 1e-2),
    torch.float16: (2e-3, 1e-3),
    torch.float32: (1e-4, 1e-5),
    torch.float64: (1e-10, 1e-12),
}


def compare(got, ref):
    """(ok, max abs error, description) of two tensors of the same case."""
    if not isinstance(ref, torch.Tensor):
        return True, 0.0, "scalar"
    if tuple(got.shape) != tuple(ref.shape):
        return False, math.inf, f"shape {list(got.shape)} vs {list(ref.shape)}"
    if got.dtype != ref.dtype:
        return False, math.inf, f"dtype {got.dtype} vs {ref.dtype}"
    if got.numel() == 0:
        return True, 0.0, "empty"
    g, r = got.detach().cpu().double(), ref.detach().cpu().double()
    nan_ok = torch.isnan(g) & torch.isnan(r)
    inf_ok = torch.isinf(g) & torch.isinf(r) & (g == r)
    err = torch.where(nan_ok | inf_ok, torch.zeros_like(g), (g - r).abs())
    err = torch.nan_to_num(err, nan=math.inf)
    if got.dtype in TOLERANCES:
        rtol, atol = TOLERANCES[got.dtype]
        ok = bool((err <= atol + rtol * r.abs()).all())
    else:
        ok = bool((err == 0).all())
    return ok, float(err.max()), str(got.dtype).replace("torch.", "")


def script_cases(path, device):
    """Runs one example with the shim: [(case, fd, inputs)]."""
    name = os.path.splitext(os.path.basename(path))[0]
    with open(path) as fh:
        source = fh.read()
    # The scripts allocate on 'cuda:0'; follow --device instead.
    source = source.replace("device='cuda:0'", f"device='{device}'")
    source = source.replace('device="cuda:0"', f"device='{device}'")
    del nvfuser.EXECUTIONS[:]
    exec(compile(source, path, "exec"), {"__name__": "__fuserlab_example__"})
    runs = list(nvfuser.EXECUTIONS)
    if len(runs) == 1:
        return [(name, path, None, runs[0][1], runs[0][2])]
    return [(f"{name}.{fn}", path, fn, fd, inputs) for fn, fd, inputs in runs]


def load_saved(folder, device):
    from check_against_torch import load_values  # tests/reference
    values, _ = load_values(folder, device)
    return values


class Timer:
    """Median device time of a callable: CUDA events, L2 flushed each sample,
    the GPU kept busy while the host queues the callable's launches."""

    def __init__(self, warmup, samples):
        self.warmup, self.samples = warmup, samples
        # Larger than any L2 (H100: 50 MB, H200: 60 MB).
        self.flush = torch.empty(256 * 1024 * 1024, dtype=torch.int8, device="cuda")

    def __call__(self, fn, inputs):
        for _ in range(self.warmup):
            fn(*inputs)
        times = []
        for _ in range(self.samples):
            self.flush.zero_()
            # Read it back, as fuserlab-cli bench's flush does: the flush's
            # dirty lines are written back now, not while the timed kernels
            # run, and they start from a cold, clean L2.
            self.flush.sum(dtype=torch.int32)
            # Keep the GPU busy (~0.5 ms) while the host reaches the launches
            # (dynamo's guards, the shim's Python): the events then time the
            # kernels, as fuserlab-cli bench's do, not the host's way to them.
            torch.cuda._sleep(1_000_000)
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            fn(*inputs)
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) * 1000.0)  # ms -> us
        return statistics.median(times)


def find_key(obj, want):
    """First number under a key for which want(key) holds: top level first,
    then breadth-first (the bench JSON's layout is read defensively)."""
    queue = [obj]
    while queue:
        node = queue.pop(0)
        if isinstance(node, dict):
            for k, v in node.items():
                if isinstance(v, (int, float)) and not isinstance(v, bool) and want(k.lower()):
                    return float(v)
            queue.extend(v for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            queue.extend(v for v in node if isinstance(v, (dict, list)))
    return None


SHORT_DTYPES = {torch.bool: "bool", torch.int32: "i32", torch.int64: "i64",
                torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32",
                torch.float64: "f64"}


def inputs_spec(inputs):
    """The CLI's --inputs SPEC ("1024x4096:bf16,128:f32") of tensor inputs;
    None where an input is a scalar or has a dtype the CLI does not name."""
    parts = []
    for x in inputs:
        if not isinstance(x, torch.Tensor) or x.dtype not in SHORT_DTYPES:
            return None
        parts.append("x".join(str(s) for s in x.shape) + ":" + SHORT_DTYPES[x.dtype])
    return ",".join(parts)


def check_outputs(case, label, ref, outputs):
    """Prints one line per output of eager (ref) against another's; True if all agree."""
    ok = True
    if len(outputs) != len(ref):
        print(f"{case:34s} {len(ref)} outputs, {label} has {len(outputs)}  FAIL")
        ok = False
    for i, (got, want) in enumerate(zip(ref, outputs)):
        good, err, what = compare(got, want)
        print(f"{case:34s} out {i} eager vs {label}: {what:9s} max abs {err:.3e}  "
              f"{'PASS' if good else 'FAIL'}")
        ok = ok and good
    return ok


def fuserlab_run(cli, path, fn_name, inputs, backend, device):
    """(inputs, outputs) of `CLI run FILE --backend B --seed 1`, loaded from
    its --save-inputs / --save-outputs folders."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [cli, "run", path, "--backend", backend, "--seed", "1",
               "--save-inputs", os.path.join(tmp, "in"), "--save-outputs", os.path.join(tmp, "out")]
        if fn_name:
            cmd += ["--fusion", fn_name]
            spec = inputs_spec(inputs)
            if spec:
                cmd += ["--inputs", spec]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd[:4])} exited {proc.returncode}: "
                               f"{(proc.stderr or proc.stdout).strip()[-300:]}")
        return (load_saved(os.path.join(tmp, "in"), device),
                load_saved(os.path.join(tmp, "out"), device))


def fuserlab_bench(cli, path, fn_name, inputs):
    """(median us, % of copy bandwidth or None) from `CLI bench`, or an error string."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "bench.json")
        cmd = [cli, "bench", path, "--json", out]
        if fn_name:
            # --fusion keeps the script's last inputs block: give this
            # definition's shapes explicitly.
            cmd += ["--fusion", fn_name]
            spec = inputs_spec(inputs)
            if spec:
                cmd += ["--inputs", spec]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0 or not os.path.exists(out):
            return f"bench exited {proc.returncode}: {(proc.stderr or proc.stdout).strip()[-200:]}"
        with open(out) as fh:
            data = json.load(fh)
    # fuserlab-cli bench --json: gpu_us {median, p20, p80, ...} and
    # bandwidth_ratio (effective bandwidth over the measured copy bandwidth).
    gpu = data.get("gpu_us") if isinstance(data, dict) else None
    if isinstance(gpu, dict) and isinstance(gpu.get("median"), (int, float)):
        ratio = data.get("bandwidth_ratio")
        return gpu["median"], ratio * 100.0 if isinstance(ratio, (int, float)) else None, data
    median = find_key(data, lambda k: "median" in k and "us" in k)
    if median is None:
        ms = find_key(data, lambda k: "median" in k and "ms" in k)
        median = ms * 1000.0 if ms is not None else find_key(data, lambda k: "median" in k)
    pct = find_key(data, lambda k: "copy" in k and ("pct" in k or "percent" in k))
    if pct is None:
        ratio = find_key(data, lambda k: "copy" in k and ("ratio" in k or "fraction" in k))
        pct = ratio * 100.0 if ratio is not None else None
    return median, pct, data


def wall_us(fn, inputs, calls=200, rounds=5):
    """Median wall time of fn(*inputs) plus a synchronize, in us: the median
    of `rounds` rounds of `calls` back-to-back calls, after a warm-up."""
    for _ in range(20):
        fn(*inputs)
        torch.cuda.synchronize()
    medians = []
    for _ in range(rounds):
        samples = []
        for _ in range(calls):
            start = time.perf_counter()
            fn(*inputs)
            torch.cuda.synchronize()
            samples.append((time.perf_counter() - start) * 1e6)
        medians.append(statistics.median(samples))
    return statistics.median(medians)


def sizes_of(inputs):
    return " ".join("x".join(str(s) for s in x.shape) if isinstance(x, torch.Tensor) else str(x)
                    for x in inputs)


def fmt(x, spec=".1f"):
    return "-" if x is None else format(x, spec)


HEAD = (f"{'fusion':34s} {'sizes':28s} {'MB':>6s} {'FuserLab us':>11s} {'eager us':>9s} "
        f"{'compile us':>10s} {'eager/FL':>8s} {'compile/FL':>10s} {'% copy BW':>9s}")


def ratios_of(r):
    fl = r["fuserlab"]
    return (r["eager"] / fl if fl else None,
            r["compile"] / fl if fl and r["compile"] else None)


def print_row(r):
    er, cr = ratios_of(r)
    print(f"{r['case']:34s} {r['sizes'][:28]:28s} {fmt(r.get('mb'), '.0f'):>6s} "
          f"{fmt(r['fuserlab']):>11s} {fmt(r['eager']):>9s} {fmt(r['compile']):>10s} "
          f"{fmt(er, '.2f'):>8s} {fmt(cr, '.2f'):>10s} {fmt(r['pct']):>9s}", flush=True)


def geomean(values):
    return math.exp(sum(math.log(x) for x in values) / len(values)) if values else None


def geomean_lines(rows):
    lines = []
    vs_compile = [ratios_of(r)[1] for r in rows if ratios_of(r)[1]]
    vs_eager = [ratios_of(r)[0] for r in rows if ratios_of(r)[0]]
    if vs_compile:
        lines.append(f"geomean speedup over torch.compile: {geomean(vs_compile):.2f} "
                     f"({len(vs_compile)} fusions, lowest {min(vs_compile):.2f})")
    if vs_eager:
        lines.append(f"geomean speedup over eager: {geomean(vs_eager):.2f} "
                     f"({len(vs_eager)} fusions, lowest {min(vs_eager):.2f})")
    return lines


def write_json(path, environment, rows):
    table = []
    for r in rows:
        er, cr = ratios_of(r)
        table.append(dict(r, eager_over_fuserlab=er, compile_over_fuserlab=cr))
    vs_compile = [x["compile_over_fuserlab"] for x in table if x["compile_over_fuserlab"]]
    vs_eager = [x["eager_over_fuserlab"] for x in table if x["eager_over_fuserlab"]]
    with open(path, "w") as fh:
        json.dump({"environment": environment, "rows": table,
                   "geomean_over_compile": geomean(vs_compile),
                   "geomean_over_eager": geomean(vs_eager),
                   "targets": [{"target": t, "met": m, "detail": d}
                               for t, m, d in perf_targets.evaluate(rows)]}, fh, indent=1)


def write_markdown(path, environment, rows):
    out = [f"{environment['gpu']}, torch {environment['torch']} (CUDA {environment['cuda']}), "
           f"{environment['date']}, median of {environment['samples']} samples, L2 flushed.", "",
           "| fusion | sizes | MB | FuserLab us | eager us | torch.compile us | eager/FL | "
           "compile/FL | % of copy BW | host us/launch | FL kernels us (CUPTI) | % of copy BW over them |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        er, cr = ratios_of(r)
        out.append(f"| {r['case']} | {r['sizes']} | {fmt(r.get('mb'), '.0f')} | {fmt(r['fuserlab'])} "
                   f"| {fmt(r['eager'])} | {fmt(r['compile'])} | {fmt(er, '.2f')} | {fmt(cr, '.2f')} "
                   f"| {fmt(r['pct'])} | {fmt(r.get('host_us_per_launch'), '.2f')} "
                   f"| {fmt(r.get('kernel_us'))} | {fmt(r.get('kernel_pct'))} |")
    out += [""] + geomean_lines(rows) + [""] + perf_targets.lines(rows)
    with open(path, "w") as fh:
        fh.write("\n".join(out) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("cases", nargs="*", help="example names or CASE names (default: all)")
    parser.add_argument("--cli", help="fuserlab-cli, for `bench` timings")
    parser.add_argument("--fuserlab-backend", choices=["cuda", "cpu", "none"],
                        help="with --cli: check `CLI run --backend B` outputs against eager "
                             "(default: cuda on a GPU, else cpu; none: skip)")
    parser.add_argument("--check-against", metavar="DIR",
                        help="FuserLab CPU-reference inputs/outputs (run_examples.sh)")
    parser.add_argument("--device", choices=["cpu", "cuda"],
                        default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--no-compile", action="store_true")
    parser.add_argument("--suite", action="store_true",
                        help="the benchmark suite (tests/perf/suite/*.py) instead of the examples")
    parser.add_argument("--heldout", action="store_true",
                        help="the held-out sizes (tests/perf/heldout/*.py) instead of the examples")
    parser.add_argument("--json", metavar="PATH",
                        help="write the table (and the environment) as JSON, after every case")
    parser.add_argument("--markdown", metavar="PATH", help="write the table as markdown")
    parser.add_argument("--compile-mode", default=None,
                        help="torch.compile mode (default, reduce-overhead, max-autotune)")
    parser.add_argument("--end-to-end", action="store_true",
                        help="also the whole call as a caller waits for it: the median "
                             "wall time of a call and a synchronize, back to back (no L2 "
                             "flush); FuserLab's is bench's run_wall_us (a cached run(), "
                             "synchronized). For decode-size fusions, with --compile-mode "
                             "reduce-overhead (CUDA graphs)")
    args = parser.parse_args()
    if args.samples < 20:
        parser.error("--samples must be at least 20")
    cuda = args.device == "cuda"
    if args.fuserlab_backend is None:
        args.fuserlab_backend = "cuda" if cuda else "cpu"
    if cuda:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    can_compile = hasattr(torch, "compile") and not args.no_compile
    print(f"torch {torch.__version__}, device {args.device}"
          + ("" if can_compile else ", torch.compile unavailable or off: skipped"))

    folder = SUITE if args.suite else HELDOUT if args.heldout else EXAMPLES
    scripts = sorted(p for p in glob.glob(os.path.join(folder, "*.py"))
                     if os.path.basename(p) != "gen_suite.py")
    environment = {"torch": torch.__version__, "device": args.device,
                   "gpu": torch.cuda.get_device_name(0) if cuda else None,
                   "cuda": torch.version.cuda, "date": time.strftime("%Y-%m-%d"),
                   "samples": args.samples, "compile_mode": args.compile_mode or "default"}
    timer = Timer(args.warmup, args.samples) if cuda else None
    rows, failed, passed = [], [], []
    for path in scripts:
        base = os.path.splitext(os.path.basename(path))[0]
        if args.cases and not any(c == base or c.startswith(base + ".") for c in args.cases):
            continue
        try:
            cases = script_cases(path, args.device)
        except Exception as error:
            print(f"{base:34s} the script failed under the shim: {type(error).__name__}: {error}  FAIL")
            traceback.print_exc(limit=3, file=sys.stdout)
            failed.append(base)
            continue
        for case, path_, fn_name, fd, inputs in cases:
            if args.cases and case not in args.cases and base not in args.cases:
                continue
            ok = True
            try:
                eager = fd.function()
                if args.check_against:
                    folder = os.path.join(args.check_against, case)
                    inputs = load_saved(os.path.join(folder, "in"), args.device)
                    saved = load_saved(os.path.join(folder, "out"), args.device)
                ref = eager(*inputs)
                if args.check_against:
                    ok = check_outputs(case, "FuserLab (saved)", ref, saved) and ok
                if args.cli and args.fuserlab_backend != "none":
                    # FuserLab's own outputs, on its own random inputs.
                    fl_inputs, fl_outputs = fuserlab_run(args.cli, path_, fn_name, inputs,
                                                         args.fuserlab_backend, args.device)
                    label = f"FuserLab ({args.fuserlab_backend})"
                    ok = check_outputs(case, label, eager(*fl_inputs), fl_outputs) and ok
                compiled = None
                if can_compile:
                    # Every case compiles the shim's same `run` function:
                    # without a reset, dynamo's recompile limit (8) would
                    # silently leave later cases running eagerly.
                    torch._dynamo.reset()
                    compiled = torch.compile(fd.function(), mode=args.compile_mode)
                    res = compiled(*inputs)
                    for i, (got, want) in enumerate(zip(res, ref)):
                        good, err, what = compare(got, want)
                        print(f"{case:34s} out {i} compile vs eager: {what:9s} max abs {err:.3e}  "
                              f"{'PASS' if good else 'FAIL'}")
                        ok = ok and good
                if not args.check_against and not compiled and not args.cli:
                    print(f"{case:34s} eager ran: {len(ref)} outputs "
                          + " ".join(f"{str(o.dtype).replace('torch.', '')}{list(o.shape)}"
                                     for o in ref if isinstance(o, torch.Tensor)))
                if timer:
                    row = {"case": case, "sizes": sizes_of(inputs),
                           "eager": timer(eager, inputs),
                           "compile": timer(compiled, inputs) if compiled else None,
                           "fuserlab": None, "pct": None}
                    if args.cli:
                        bench = fuserlab_bench(args.cli, path_, fn_name, inputs)
                        if isinstance(bench, str):
                            print(f"{case:34s} {bench}")
                        else:
                            row["fuserlab"], row["pct"], data = bench
                            moved = data.get("bytes_moved") if isinstance(data, dict) else None
                            row["mb"] = moved / 1e6 if isinstance(moved, (int, float)) else None
                            row["host_us_per_launch"] = data.get("host_us_per_launch")
                            row["host_round_medians_us"] = data.get("host_round_medians_us")
                            row["host_preemptions"] = data.get("host_preemptions")
                            row["host_reference_loop_us"] = (
                                data.get("host_reference_loop_us") or {}).get("median")
                            row["launches"] = data.get("launches") and len(data["launches"])
                            # The kernels' own time (CUPTI records), for the
                            # table; the targets stay on the events.
                            cupti = data.get("cupti_kernels") or {}
                            span = cupti.get("span_us") or {}
                            row["kernel_us"] = span.get("median")
                            kratio = cupti.get("bandwidth_ratio")
                            row["kernel_pct"] = kratio * 100.0 if isinstance(kratio, (int, float)) else None
                            row["e2e_fuserlab"] = (data.get("run_wall_us") or {}).get("median")
                    if args.end_to_end:
                        row["e2e_eager"] = wall_us(eager, inputs)
                        row["e2e_compile"] = wall_us(compiled, inputs) if compiled else None
                    rows.append(row)
                    print_row(row)
                    slow_host = row.get("host_us_per_launch")
                    if isinstance(slow_host, (int, float)) and slow_host > 5:
                        # Over the target: say whether one round or every
                        # round was slow, and whether the thread lost its CPU.
                        print(f"{case:34s} host time over 5 us: rounds' medians "
                              f"{row.get('host_round_medians_us')} us, preempted "
                              f"{row.get('host_preemptions')} times; the "
                              f"CPU's reference loop {fmt(row.get('host_reference_loop_us'), '.2f')} "
                              f"us (1.4 to 2.1 on a quiet H100 host)")
                    if args.json:
                        write_json(args.json, environment, rows)
            except Exception as error:  # one broken case must not hide the others
                print(f"{case:34s} error: {type(error).__name__}: {error}  FAIL")
                traceback.print_exc(limit=4, file=sys.stdout)
                ok = False
            (passed if ok else failed).append(case)

    if rows:
        print()
        print(HEAD)
        print("-" * len(HEAD))
        for r in rows:
            print_row(r)
        for line in geomean_lines(rows):
            print(line)
        for line in perf_targets.lines(rows):
            print(line)
        if args.end_to_end:
            mode = args.compile_mode or "default"
            print()
            print(f"whole call, us (a call and a synchronize; torch.compile mode {mode}):")
            print(f"{'fusion':34s} {'FuserLab':>9s} {'eager':>9s} {'compile':>9s} {'compile/FL':>10s}")
            for r in rows:
                fl, ea, co = r.get("e2e_fuserlab"), r.get("e2e_eager"), r.get("e2e_compile")
                ratio = co / fl if isinstance(co, (int, float)) and isinstance(fl, (int, float)) and fl else None
                print(f"{r['case']:34s} {fmt(fl):>9s} {fmt(ea):>9s} {fmt(co):>9s} {fmt(ratio, '.2f'):>10s}")
        if args.json:
            write_json(args.json, environment, rows)
        if args.markdown:
            write_markdown(args.markdown, environment, rows)
    print(f"{len(passed)} passed, {len(failed)} failed")
    if failed:
        print("FAILED: " + " ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
