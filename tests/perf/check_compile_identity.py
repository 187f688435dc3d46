#!/usr/bin/env python3
"""Records, or compares against a recording, every compile report FuserLab
gives for the bundled examples and bench_compile's generated fusions, so a
change meant only to make compilation faster can be shown to change nothing
else.

    check_compile_identity.py record DIR   [--build BUILD]
    check_compile_identity.py compare DIR  [--build BUILD]

Each case is one `fuserlab-cli inspect` run: every example of
resources/examples (every fusion definition of the file), plus the three
fusions `bench_compile --write-scripts` generates (200 ops, inputs
2048x1024:bf16), on several devices and option sets. What is kept per case:
the text output with the fusion_ir_preseg, segmented_fusion,
scheduler_params and segmenter_logging dumps (the merge log: every merge
tried, its outcome and reason) and the --json report, both with the compile
time removed (the "compiled in ... ms" line's figure, the compile_us key).
`compare` prints the first differing lines of each case that differs and
exits 1 if any does.

Run it with the build of the code before the change (record) and after it
(compare); BUILD defaults to ./build.
"""
import argparse
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DUMPS = "fusion_ir_preseg,segmented_fusion,scheduler_params,segmenter_logging"
DEVICES = ["h100", "a100", "v100", "l40s"]
OPTION_SETS = [
    [],
    ["--set", "upcast=forward"],
    ["--set", "bookend=inputs_and_outputs"],
    ["--set", "bookend=none", "--set", "upcast=forward"],
]
BENCH_INPUTS = "2048x1024:bf16"


def strip_times(text):
    return re.sub(r"compiled in [0-9.e+-]+ ms", "compiled in <t> ms", text)


def strip_json(value):
    if isinstance(value, dict):
        return {k: strip_json(v) for k, v in value.items() if k != "compile_us"}
    if isinstance(value, list):
        return [strip_json(v) for v in value]
    return value


def run_inspect(cli, script, extra):
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        proc = subprocess.run(
            [cli, "inspect", script, "--dump", DUMPS, "--json", report.name] + extra,
            capture_output=True, text=True)
        text = "rc %d\n%s\n--- stderr\n%s" % (proc.returncode, proc.stdout, proc.stderr)
        try:
            with open(report.name) as f:
                body = f.read()
            report_json = json.loads(body) if body.strip() else None
        except (OSError, ValueError):
            report_json = None
    out = strip_times(text).replace(script, os.path.basename(script))
    if report_json is not None:
        stripped = strip_json(report_json)
        if "file" in stripped:
            stripped["file"] = os.path.basename(stripped["file"])
        out += "\n--- json\n" + json.dumps(stripped, indent=1)
    return out


def definitions(cli, script):
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        subprocess.run([cli, "inspect", script, "--json", report.name],
                       capture_output=True, text=True)
        try:
            with open(report.name) as f:
                return json.load(f).get("definitions") or [None]
        except (OSError, ValueError):
            return [None]


def cases(build, scratch):
    cli = os.path.join(build, "app", "cli", "fuserlab-cli")
    bench = os.path.join(build, "tests", "perf", "bench_compile")
    subprocess.run([bench, "--write-scripts", scratch, "200"], check=True)
    examples = os.path.join(REPO, "resources", "examples")
    for name in sorted(os.listdir(examples)):
        if not name.endswith(".py"):
            continue
        script = os.path.join(examples, name)
        for fusion in definitions(cli, script):
            pick = ["--fusion", fusion] if fusion else []
            for device in DEVICES:
                for i, options in enumerate(OPTION_SETS):
                    key = "%s.%s.%s.o%d" % (name[:-3], fusion or "-", device, i)
                    yield key, cli, script, pick + ["--device", device] + options
    for name in ["bench_one_segment", "bench_segment_set", "bench_inner_outer"]:
        script = os.path.join(scratch, name + ".py")
        for device in DEVICES:
            for i, options in enumerate(OPTION_SETS):
                key = "%s.%s.o%d" % (name, device, i)
                yield key, cli, script, ["--inputs", BENCH_INPUTS, "--device",
                                         device] + options


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["record", "compare"])
    parser.add_argument("dir")
    parser.add_argument("--build", default=os.path.join(REPO, "build"))
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    differing = 0
    total = 0
    with tempfile.TemporaryDirectory() as scratch:
        for key, cli, script, extra in cases(args.build, scratch):
            total += 1
            got = run_inspect(cli, script, extra)
            path = os.path.join(args.dir, key + ".txt")
            if args.mode == "record":
                with open(path, "w") as f:
                    f.write(got)
                continue
            if not os.path.exists(path):
                print("%s: not in the recording" % key)
                differing += 1
                continue
            with open(path) as f:
                want = f.read()
            if got != want:
                differing += 1
                diff = list(difflib.unified_diff(want.splitlines(), got.splitlines(),
                                                 "recorded", "now", lineterm="", n=1))
                print("%s differs:\n  %s" % (key, "\n  ".join(diff[:20])))
    if args.mode == "record":
        print("recorded %d cases in %s" % (total, args.dir))
        return 0
    print("%d of %d cases identical" % (total - differing, total))
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
