"""python -m fuserlab run|inspect SCRIPT [ARGS...]

Runs an nvFuser repro unchanged on FuserLab: `nvfuser_direct` and `nvfuser`
resolve to fuserlab while the script runs. `inspect` also prints, after each
fd.execute, the segments with their schedulers and why the others refused.
Without PyTorch installed, `torch` resolves to a small numpy stand-in
(fuserlab._numpy_torch) so that float32/float64/int repros run on the CPU
reference backend."""
import runpy
import sys
import types

import fuserlab
from fuserlab import _definition


def _alias_modules():
    for name in ("nvfuser_direct", "nvfuser"):
        module = types.ModuleType(name)
        module.FusionDefinition = fuserlab.FusionDefinition
        module.DataType = fuserlab.DataType
        module.Tensor = fuserlab.Tensor
        module.Scalar = fuserlab.Scalar
        module.__fuserlab__ = True
        sys.modules[name] = module
    try:
        import torch  # noqa: F401
    except ImportError:
        from fuserlab import _numpy_torch
        sys.modules["torch"] = _numpy_torch
        sys.modules["torch.testing"] = _numpy_torch.testing
        print("fuserlab: torch is not installed; the script's torch calls run on numpy "
              "(CPU reference backend)", file=sys.stderr)


def _print_segments(fd):
    report = fd.report()
    segments = report["segments"]
    print(f"fuserlab: {len(segments)} segments, {report['kernel_count']} kernels on "
          f"{report['device'].get('name', '?')}")
    for segment in segments:
        print(f"  segment {segment['id']}: {segment['scheduler']}, "
              f"{len(segment['exprs'])} exprs")
        for rejected in segment["rejected"]:
            print(f"    not {rejected['scheduler']}: {rejected['reason']}")


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) < 2 or argv[0] not in ("run", "inspect"):
        print(__doc__, file=sys.stderr)
        return 2
    command, script = argv[0], argv[1]
    _alias_modules()
    executes = []
    original = _definition.FusionDefinition.execute

    def execute(self, inputs, **kwargs):
        outputs = original(self, inputs, **kwargs)
        executes.append(self)
        if command == "inspect":
            _print_segments(self)
        return outputs

    _definition.FusionDefinition.execute = execute
    sys.argv = [script] + argv[2:]
    try:
        runpy.run_path(script, run_name="__main__")
    except fuserlab.FuserLabError as error:
        print(f"fuserlab {command}: {error}", file=sys.stderr)
        return 2
    finally:
        _definition.FusionDefinition.execute = original
    print(f"fuserlab {command}: {script}: {len(executes)} fd.execute call(s) ran on FuserLab")
    return 0


if __name__ == "__main__":
    sys.exit(main())
