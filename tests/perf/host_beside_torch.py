#!/usr/bin/env python3
"""Host time of `fuserlab-cli bench` with and without a PyTorch process beside it.

Issue 6's host-time target (a cached single-kernel run at most 5 us of host
time per launch) held with `bench` alone and was missed in compare_torch.py
runs, where `bench` is a child of a process that has run torch eager and
torch.compile on the same GPU. This probe runs the same `bench` processes in
phases and prints each one's host time per launch, its rounds' medians, how
often its thread was preempted and how fast the CPU ran a reference loop:

  alone     no other process
  context   a process holding a torch CUDA context (an op run, then idle)
  compiled  a process that ran a torch.compile'd function (inductor's
            compile workers alive), then idle
  busy      a process queueing small torch ops on the same GPU without pause
  after     alone again

    python3 tests/perf/host_beside_torch.py --cli build/app/cli/fuserlab-cli \
        [--repeats 2] [--json OUT.json] CASE.py ...

A GPU machine with PyTorch; not part of the build or the tests.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HOLDER = r"""
import sys, time, torch
mode = sys.argv[1]
x = torch.randn(4096, 4096, device="cuda")
if mode == "compiled":
    f = torch.compile(lambda a: torch.nn.functional.layer_norm(a * 2 + 1, (4096,)))
    f(x)
torch.cuda.synchronize()
print("ready", flush=True)
if mode == "busy":
    y = torch.randn(256, device="cuda")
    while True:
        y.add_(1)
        torch.cuda.synchronize()
else:
    time.sleep(3600)
"""


def bench(cli, case, cpu=None):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "bench.json")
        pin = ["taskset", "-c", str(cpu)] if cpu is not None else []
        proc = subprocess.run(pin + [cli, "bench", case, "--json", out],
                              capture_output=True, text=True)
        if proc.returncode != 0 or not os.path.exists(out):
            return {"error": (proc.stderr or proc.stdout).strip()[-300:]}
        with open(out) as fh:
            return json.load(fh)


def start_holder(mode):
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, mode], stdout=subprocess.PIPE,
                            text=True)
    line = proc.stdout.readline()
    if "ready" not in line:
        proc.kill()
        raise RuntimeError(f"the {mode} torch process did not start")
    return proc


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", required=True)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--phases", default="alone,context,compiled,busy,after")
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--pin", action="store_true",
                        help="phase 'alone' only, each bench pinned in turn to CPU 0, 1, ...")
    parser.add_argument("cases", nargs="+")
    args = parser.parse_args()

    rows = []
    runs = 0
    print(f"{'phase':9s} {'case':34s} {'us/launch':>9s} {'prepare':>8s}  rounds' medians (us)"
          "                     preempted  reference loop")
    for phase in args.phases.split(","):
        holder = None
        if phase in ("context", "compiled", "busy"):
            holder = start_holder(phase)
            time.sleep(1.0)
        try:
            for _ in range(args.repeats):
                for case in args.cases:
                    cpu = runs % os.cpu_count() if args.pin else None
                    runs += 1
                    data = bench(args.cli, case, cpu)
                    name = os.path.splitext(os.path.basename(case))[0]
                    row = {"phase": phase if cpu is None else f"cpu {cpu}", "case": name}
                    if "error" in data:
                        row["error"] = data["error"]
                        print(f"{phase:9s} {name:34s} error: {data['error']}")
                    else:
                        row.update({k: data.get(k) for k in (
                            "host_us_per_launch", "host_round_medians_us", "host_preemptions",
                            "host_round_cpus")})
                        row["host_reference_loop_us"] = (
                            data.get("host_reference_loop_us") or {}).get("median")
                        row["host_prepare_us"] = (data.get("host_prepare_us") or {}).get("median")
                        rounds = " / ".join(f"{r:.2f}" for r in row["host_round_medians_us"] or [])
                        print(f"{row['phase']:9s} {name:34s} {row['host_us_per_launch']:9.2f} "
                              f"{row['host_prepare_us']:8.2f}  {rounds:40s} "
                              f"{row['host_preemptions']!s:>9s}  "
                              f"loop {row['host_reference_loop_us'] or 0:.2f} us on CPU "
                              f"{row['host_round_cpus']}", flush=True)
                    rows.append(row)
        finally:
            if holder:
                holder.kill()
                holder.wait()
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
