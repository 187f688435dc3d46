"""The fuserlab module on the CPU reference backend with numpy (what CI runs;
python/tests/gpu_check.py is the GPU check with torch)."""
import os
import subprocess
import sys

import numpy as np
import pytest

from fuserlab import DataType, FusionDefinition, FuserLabError

SOURCE = os.environ.get("FUSERLAB_SOURCE_DIR",
                        os.path.join(os.path.dirname(__file__), "..", ".."))
rng = np.random.default_rng(7)


def randn(*shape):
    return (rng.standard_normal(shape) + 0.5).astype(np.float32)  # never all zeros


def test_pointwise_matches_numpy():
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
        t1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
        s0 = fd.define_scalar(2.0, dtype=DataType.Double)
        t2 = fd.ops.broadcast_in_dim(t1, shape=t0.shape(), broadcast_dims=[1])
        t3 = fd.ops.mul(fd.ops.add(t0, t2), s0)
        fd.add_output(fd.ops.tanh(t3))
        fd.add_output(-t0 * 3.0 + 1)
    x, b = randn(8, 16), randn(16)
    out, out2 = fd.execute([x, b])
    np.testing.assert_allclose(out, np.tanh((x + b) * 2.0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out2, -x * 3.0 + 1, rtol=1e-6)


def test_reduction_and_strided_input_match_numpy():
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float,
                              stride_order=[0, 1])
        fd.add_output(fd.ops.sum(t0, dims=[0]))
        fd.add_output(fd.ops.max(t0, dims=[1], keepdim=True))
    x = np.asfortranarray(randn(32, 24))
    total, largest = fd.execute([x])
    np.testing.assert_allclose(total, x.sum(0), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(largest, x.max(1, keepdims=True))


def layer_norm_fd(**options):
    with FusionDefinition(**options) as fd:
        x = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
        w = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
        var, mean = fd.ops.var_mean(x, dims=[1], correction=0, keepdim=False)
        mean_b = fd.ops.broadcast_in_dim(mean, shape=x.shape(), broadcast_dims=[0])
        var_b = fd.ops.broadcast_in_dim(var, shape=x.shape(), broadcast_dims=[0])
        rstd = fd.ops.rsqrt(fd.ops.add(var_b, 1e-5))
        y = fd.ops.mul(fd.ops.mul(fd.ops.sub(x, mean_b), rstd),
                       fd.ops.broadcast_in_dim(w, shape=x.shape(), broadcast_dims=[1]))
        fd.add_output(y)
    return fd


def test_layer_norm_matches_numpy_and_the_compile_is_cached():
    fd = layer_norm_fd()
    x, w = randn(64, 128), randn(128)
    (y,) = fd.execute([x, w])
    expected = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5) * w
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-4)
    assert fd.stats()["compiles"] == 1
    fd.execute([randn(64, 128), randn(128)])  # same signature: no new compile
    assert fd.stats() == {"compiles": 1, "executes": 2, "gpu_kernels_built": 0,
                          "exchange_api_executes": 0}
    fd.execute([randn(32, 128), randn(128)])  # new sizes: a new compile
    assert fd.stats()["compiles"] == 2


def test_report_segments_and_cuda_code():
    fd = layer_norm_fd()
    x, w = randn(64, 128), randn(128)
    report = fd.report([x, w])
    assert report["segment_count"] == 1
    segment = fd.segments()[0]
    assert segment["scheduler"] == "inner_persistent"
    assert any(r["scheduler"] == "pointwise" for r in segment["rejected"])
    assert "__global__" in fd.cuda_code(0)
    assert "def nvfuser_fusion_segment0(fd : FusionDefinition)" in fd.segment_script(0)
    script = fd.repro_script([x, w])
    assert "fd.ops.var_mean(T0, dims=[1], correction=0, keepdim=False)" in script
    assert "torch.randn((8192,), dtype=torch.float32" in script


def test_options_reach_the_compiler():
    fd = layer_norm_fd(upcast="forward", bookend="none", device="a100",
                       disable_passes=["consecutive_cast"])
    report = fd.report([randn(64, 128), randn(128)])
    assert report["options"]["upcast"] == "forward"
    assert report["options"]["bookend"] == "none"
    assert report["device"]["key"].startswith("a100")
    assert any(p["name"] == "consecutive_cast" and not p["enabled"] for p in report["passes"])
    with pytest.raises(FuserLabError, match="upcast"):
        FusionDefinition(upcast="sometimes")


def test_sizes_strides_form_old_dialect_and_subclass():
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(sizes=[4, 6], strides=[6, 1], dtype=DataType.Float)
        fd.add_output(fd.ops.exp(t0))
    x = randn(4, 6)
    np.testing.assert_allclose(fd.execute([x])[0], np.exp(x), rtol=1e-6)

    class Old(FusionDefinition):  # the older nvfuser module's style
        def definition(self):
            t0 = self.define_tensor(symbolic_sizes=[-1], contiguity=[True], dtype=DataType.Float)
            self.add_output(self.ops.abs(t0))

    np.testing.assert_array_equal(Old().execute([x[0]])[0], np.abs(x[0]))


def test_alias_output_updates_the_input_in_place():
    with FusionDefinition() as fd:
        p = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
        fd.add_output(fd.ops.mul(p, 2.0), p)
    x = randn(5)
    before = x.copy()
    fd.execute([x])
    np.testing.assert_array_equal(x, before * 2.0)


def test_bad_calls_are_errors_naming_what_is_wrong():
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
        with pytest.raises(FuserLabError, match="unknown op fd.ops.nosuch"):
            fd.ops.nosuch(t0)
        with pytest.raises(FuserLabError, match="fd.ops.sum"):
            fd.ops.sum(t0, dims="one")
        fd.add_output(t0)
    with pytest.raises(FuserLabError, match="the fusion has 1 inputs but execute was given 2"):
        fd.execute([randn(3), randn(3)])
    with pytest.raises(FuserLabError, match="__dlpack__"):
        fd.execute([object()])


def test_run_and_inspect_a_bundled_repro_unchanged():
    env = dict(os.environ)
    for command in ("run", "inspect"):
        result = subprocess.run(
            [sys.executable, "-m", "fuserlab", command,
             os.path.join(SOURCE, "resources/examples/welford.py")],
            capture_output=True, text=True, env=env, check=False)
        assert result.returncode == 0, result.stderr
        assert "1 fd.execute call(s) ran on FuserLab" in result.stdout
    assert "segment 0: reduction" in result.stdout
