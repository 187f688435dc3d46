#!/usr/bin/env python3
"""Checks FuserLab's CPU reference executor against PyTorch.

The reference executor is the oracle of every GPU test, so it is checked here
against formulas written independently of it, in PyTorch, for every bundled
example in resources/examples/*.py.

Usage:
    check_against_torch.py DATA_DIR [--device cpu|cuda] [CASE ...]

DATA_DIR holds one folder per case, each with the two folders written by
    fuserlab-cli run resources/examples/NAME.py --seed 1 \
        --save-inputs DATA_DIR/CASE/in --save-outputs DATA_DIR/CASE/out
(input_<i>.npy / output_<i>.npy plus manifest.json; bf16 and f16 tensors are
saved as float32). CASE is the example's name; a script with several fusion
definitions has one case per definition, "NAME.FUNCTION" (two_fusions).

For each case the inputs are loaded in their original dtype, checked to be
random and non-zero, the PyTorch reference is computed from the inputs alone
(fp32 math, as the fusions do), and each output is compared with FuserLab's
using a tolerance by dtype:  |got - ref| <= atol + rtol * |ref|  elementwise.
One line is printed per output; the exit status is 1 if anything failed.

"max rel" is max(|got - ref| / max(|ref|, atol / rtol)): a relative error that
does not blow up where the reference is (nearly) zero.

Layouts are not checked: .npy files hold tensors in logical order. Shapes and
dtypes are.
"""

import argparse
import json
import math
import os
import sys
import traceback

import numpy as np
import torch
import torch.nn.functional as F

# FuserLab short dtype names (manifest.json) -> torch dtypes.
DTYPES = {
    "bool": torch.bool,
    "i32": torch.int32,
    "i64": torch.int64,
    "f16": torch.float16,
    "bf16": torch.bfloat16,
    "f32": torch.float32,
    "f64": torch.float64,
}

# (rtol, atol) by output dtype; integers and bools are compared exactly. "red"
# marks an fp32 output that is (or comes from) a reduction: two summation
# orders legitimately differ by more.
TOLERANCES = {
    "bf16": (2e-2, 1e-3),
    "f16": (1e-3, 1e-4),
    "f32": (1e-5, 1e-6),
    "f32red": (1e-4, 1e-5),
    "f64": (1e-12, 1e-14),
    "f64red": (1e-10, 1e-12),
}


def f(t):
    """fp32 view of an input, as the fusions' cast(..., Float) does."""
    return t.float()


def out(label, ref, dtype, kind=None):
    """One expected output: its label, the fp32 (or exact) reference tensor,
    the dtype FuserLab must produce, and the kind of comparison: None (by
    dtype), "red" (an fp32 reduction's looser tolerance) or "exact" (data
    movement only: copies, slices, pads must match bit for bit)."""
    return (label, ref, dtype, kind)


def layer_norm(x, w, b, eps=1e-5):
    n = x.shape[-1]
    return F.layer_norm(f(x), (n,), f(w), f(b), eps)


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat([-x[..., h:], x[..., :h]], dim=-1)


def silu_backward(grad, x):
    """d/dx silu(x) * grad through autograd, not through the script's formula."""
    t = f(x).detach().requires_grad_(True)
    F.silu(t).backward(f(grad))
    return t.grad.detach()


def causal_scores(q, k, scale):
    s = (f(q) @ f(k).transpose(-2, -1)) * scale
    n, m = s.shape[-2], s.shape[-1]
    keep = torch.ones(n, m, dtype=torch.bool, device=s.device).tril()
    return s.masked_fill(~keep, float("-inf"))


# One entry per case: inputs -> expected outputs, in add_output order.
# Adapted from a colleague's mock-based check (build_flmock/check_refs.py);
# changes against it are marked "fixed:" or "added:".
def rms_norm_backward(g, x, w, rstd):
    """dx of y = x * rstd * w with rstd given (saved from the forward)."""
    g, x, w = f(g), f(x), f(w)
    xh = x * rstd
    gw = g * w
    m = (gw * xh).sum(-1, keepdim=True) * (1.0 / x.shape[-1])
    return (gw - xh * m) * rstd


REFS = {
    "layer_norm": lambda x: [
        out("y", layer_norm(x[0], x[1], x[2]), "bf16"),
        out("mean", f(x[0]).mean(1), "f32", "red"),
        out("rstd", torch.rsqrt(f(x[0]).var(1, correction=0) + 1e-5)[:, None], "f32", "red"),
    ],
    "rms_norm": lambda x: [
        out("y", f(x[0]) * torch.rsqrt(f(x[0]).pow(2).mean(-1, keepdim=True) + 1e-6) * f(x[1]), "bf16"),
        # added: the script also outputs T10 = rsqrt(mean(x^2) + eps), [4, 256, 1].
        out("rstd", torch.rsqrt(f(x[0]).pow(2).mean(-1, keepdim=True) + 1e-6), "f32", "red"),
    ],
    "softmax": lambda x: [out("y", torch.softmax(f(x[0]) * 0.125, -1), "bf16")],
    "pointwise_cast_chain": lambda x: [
        out("y", torch.tanh(torch.clamp(torch.where(
            f(x[0]) * x[2] + f(x[1]) > 0,
            torch.log1p((f(x[0]) * x[2] + f(x[1])).abs()),
            torch.sigmoid(f(x[1]))), -4, 4)) * f(x[0]) - 1, "bf16"),
        out("mask", f(x[0]) * x[2] + f(x[1]) > 0, "bool"),
    ],
    "gelu_tanh": lambda x: [out("y", F.gelu(f(x[0]), approximate="tanh"), "bf16")],
    "sum_reduction": lambda x: [
        out("sum", x[0].sum(1), "f32", "red"),
        out("l2", torch.linalg.vector_norm(x[0], dim=1), "f32", "red"),
    ],
    "outer_reduction": lambda x: [
        out("sum", f(x[0]).sum(0, keepdim=True), "f32", "red"),
        out("mean", f(x[0]).mean(0, keepdim=True), "bf16"),
    ],
    "meta_op_chain": lambda x: [
        out("k", x[0][0, :, 1024:2048].reshape(512, 16, 64).permute(1, 0, 2), "bf16", "exact"),
        out("y", f(x[0][0, :, 1024:2048].reshape(512, 16, 64).permute(1, 0, 2)) * f(x[1])[:, None, None], "bf16"),
    ],
    "rope": lambda x: [out("y", f(x[0]) * f(x[1]) + f(rotate_half(x[0])) * f(x[2]), "bf16")],
    "matmul": lambda x: [out("y", f(x[0]) @ f(x[1]), "bf16")],
    "linear_bias": lambda x: [
        out("lin", F.linear(f(x[0]), f(x[1]), f(x[2])), "bf16"),
        # fixed: the GELU reads T3, the linear output already rounded to bf16.
        out("gelu", F.gelu(F.linear(f(x[0]), f(x[1]), f(x[2])).bfloat16().float()), "bf16"),
    ],
    "silu_mul": lambda x: [out("y", F.silu(f(x[0])) * f(x[1]), "bf16")],
    "stride_order_io": lambda x: [
        out("y0", f(x[0]) + f(x[1]), "bf16"),
        out("y1", torch.relu(x[2]) * 2, "f32"),
    ],
    "batch_norm_outer": lambda x: [
        out("y", F.batch_norm(f(x[0]), None, None, x[1], x[2], training=True, eps=1e-5), "bf16"),
        out("mean", f(x[0]).mean(0), "f32", "red"),
        out("invstd", torch.rsqrt(f(x[0]).var(0, correction=0) + 1e-5), "f32", "red"),
    ],
    "pad_cat": lambda x: [
        out("cat", torch.cat([F.pad(x[0], [0, 24]), x[1]], 0), "bf16", "exact"),
        out("y", F.pad((f(torch.cat([F.pad(x[0], [0, 24]), x[1]], 0)) * 2).bfloat16(), [0, 0, 1, 1], value=-1.0), "bf16", "exact"),
    ],
    "index_select_gather": lambda x: [
        out("emb", f(x[0][x[1]]) * math.sqrt(768), "bf16"),
        out("g", torch.exp(torch.take_along_dim(x[2], x[3], dim=1)), "f32"),
    ],
    "seed000_forwarding_miss": lambda x: [
        out("y", f(x[0]) + f(x[0]).sum(1, keepdim=True), "bf16"),
        out("seg", x[1], "bf16", "exact"),
    ],
    "seed001_nanogpt_layer_norm": lambda x: [out("y", layer_norm(x[0], x[1], x[2]), "bf16")],
    "seed001_bookend_inputs": lambda x: [out("y", layer_norm(x[0], x[1], x[2]), "bf16")],
    "sdpa_fwd": lambda x: [
        out("o", F.scaled_dot_product_attention(f(x[0]), f(x[1]), f(x[2]), is_causal=True, scale=0.125), "bf16"),
        # fixed: the mock only checked the logsumexp's shape; check its values.
        out("lse", torch.logsumexp(causal_scores(x[0], x[1], 0.125), -1), "f32", "red"),
        out("o2", F.scaled_dot_product_attention(f(x[0]), f(x[1]), f(x[2]), is_causal=True, scale=0.125)
            .permute(0, 2, 1, 3).reshape(2, 256, 1024), "bf16"),
    ],
    "define_tensor_sizes_strides": lambda x: [
        out("y", f(x[0]) + f(x[1]) + x[2], "bf16"),
        out("r", f(x[0]) + f(x[1]), "bf16"),
    ],
    # added: the forward fusion (the mock checked only the backward one).
    "two_fusions.nvfuser_fusion_id0": lambda x: [out("y", F.silu(f(x[0])), "bf16")],
    "two_fusions.nvfuser_fusion_id1": lambda x: [out("dx", silu_backward(x[0], x[1]), "bf16")],
    "welford": lambda x: [
        out("avg", x[0].mean(1), "f32", "red"),
        out("var", x[0].var(1, correction=0), "f32", "red"),
        out("var2", x[0].var(1, correction=0), "f32", "red"),
        out("mean2", x[0].mean(1), "f32", "red"),
    ],
    "dynamic_shapes": lambda x: [
        out("y", (x[0] + x[1]).reshape(x[0].shape[0], x[0].shape[1], 12, 64).permute(0, 2, 1, 3), "f32", "exact"),
    ],
    # The expanded weight and rstd are saved in logical order (materialized).
    "expanded_inputs": lambda x: [
        out("dx", rms_norm_backward(x[0], x[1], x[2], x[3]), "bf16"),
        out("dw", (f(x[0]) * (f(x[1]) * x[3])).sum((0, 1)), "f32", "red"),
    ],
    # A 0-dim operand beside ranked tensors promotes as a scalar: the Double
    # bound is compared and selected in float.
    "zero_dim_operands": lambda x: [
        out("y", torch.lerp(
            torch.where(x[0] * f(x[1]) + f(x[2]) > x[3].float(), x[3].float(),
                        x[0] * f(x[1]) + f(x[2])),
            f(x[2]), torch.sigmoid(torch.abs(x[0]))), "bf16"),
    ],
    "causal_mask_iota": lambda x: [
        out("y", torch.softmax(f(x[0]).masked_fill(
            ~torch.ones(x[0].shape[-2], x[0].shape[-1], dtype=torch.bool, device=x[0].device).tril(),
            -10000.0), -1), "bf16"),
    ],
}


class CaseError(Exception):
    pass


def load_manifest(folder):
    path = os.path.join(folder, "manifest.json")
    with open(path) as fh:
        return json.load(fh)


def load_values(folder, device):
    """The tensors (original dtype) and scalars of one saved folder, with
    their manifest entries."""
    values = []
    entries = load_manifest(folder)
    for entry in entries:
        if "scalar" in entry:
            values.append(entry["scalar"])
            continue
        array = np.load(os.path.join(folder, entry["file"]))
        dtype = DTYPES[entry["dtype"]]
        shape = tuple(entry["shape"])
        if tuple(array.shape) != shape:
            raise CaseError(f"{folder}/{entry['file']}: npy shape {array.shape} "
                            f"but manifest shape {shape}")
        # np.ascontiguousarray makes a 0-d array 1-d; the reshape keeps the
        # saved shape (a scalar loss stays shape []).
        t = torch.from_numpy(np.ascontiguousarray(array)).reshape(shape)
        if t.dtype != dtype:
            restored = t.to(dtype)
            # bf16/f16 are saved as f32; the values must be exact in the dtype.
            back = restored.to(t.dtype)
            same = (back == t) | (torch.isnan(back) & torch.isnan(t))
            if not bool(same.all()):
                raise CaseError(f"{folder}/{entry['file']}: values saved as "
                                f"{array.dtype} are not exact in {entry['dtype']}")
            t = restored
        values.append(t.to(device))
    return values, entries


def check_inputs(name, inputs, entries):
    """Inputs must be random: not all zero, not constant (the oracle is
    worthless on zeros or ones)."""
    ok = True
    for i, (value, entry) in enumerate(zip(inputs, entries)):
        if not isinstance(value, torch.Tensor):
            continue
        v = value.double() if value.dtype != torch.bool else value.to(torch.int8).double()
        n = v.numel()
        zeros = int((v == 0).sum())
        distinct = int(torch.unique(v).numel()) if n else 0
        good = n > 0 and zeros < n and (n == 1 or distinct > 1)
        if value.is_floating_point() and n >= 64:
            # randn / rand draws: hardly any exact zeros, many distinct values.
            good = good and zeros <= n // 16 and distinct >= min(n // 4, 64)
        if not good:
            ok = False
            print(f"{name:34s} input_{i} ({entry['dtype']}{list(value.shape)}): "
                  f"not random ({zeros} zeros, {distinct} distinct of {n})  FAIL")
    tensors = [(i, v) for i, v in enumerate(inputs) if isinstance(v, torch.Tensor)]
    for a, (i, u) in enumerate(tensors):
        for j, v in tensors[a + 1:]:
            if u.shape == v.shape and u.dtype == v.dtype and u.numel() > 1 and bool((u == v).all()):
                ok = False
                print(f"{name:34s} input_{i} and input_{j} are identical  FAIL")
    if ok:
        print(f"{name:34s} inputs: {len(inputs)}, random and non-zero")
    return ok


def compare(got, ref, rtol, atol):
    """(max abs error, max rel error, pass) of got against ref."""
    if got.numel() == 0:
        return 0.0, 0.0, True
    g = got.double()
    r = ref.double()
    err = (g - r).abs()
    both_nan = torch.isnan(g) & torch.isnan(r)
    same_inf = torch.isinf(g) & torch.isinf(r) & (g == r)
    err = torch.where(both_nan | same_inf, torch.zeros_like(err), err)
    err = torch.where(torch.isnan(err), torch.full_like(err, math.inf), err)
    bound = atol + rtol * r.abs()
    passed = bool((err <= bound).all())
    floor = atol / rtol if rtol > 0 else 1.0
    rel = err / torch.clamp(r.abs(), min=floor)
    return float(err.max()), float(rel.max()), passed


def check_case(name, folder, device):
    inputs, in_entries = load_values(os.path.join(folder, "in"), device)
    outputs, out_entries = load_values(os.path.join(folder, "out"), device)
    all_ok = check_inputs(name, inputs, in_entries)
    expected = REFS[name](inputs)
    if len(expected) != len(outputs):
        print(f"{name:34s} {len(outputs)} outputs, the reference has {len(expected)}  FAIL")
        return False
    for i, ((label, ref, dtype, kind), got, entry) in enumerate(
            zip(expected, outputs, out_entries)):
        tag = f"{name:34s} {i}:{label:6s}"
        ref = ref.detach()
        problems = []
        if entry["dtype"] != dtype:
            problems.append(f"dtype {entry['dtype']}, expected {dtype}")
        if tuple(got.shape) != tuple(ref.shape):
            problems.append(f"shape {list(got.shape)}, expected {list(ref.shape)}")
        if problems:
            print(f"{tag} {'; '.join(problems)}  FAIL")
            all_ok = False
            continue
        if kind == "exact" or dtype in ("bool", "i32", "i64"):
            g, r = got.double(), ref.double()
            mismatches = int(((g != r) & ~(torch.isnan(g) & torch.isnan(r))).sum())
            ok = mismatches == 0
            abs_err = float(torch.nan_to_num((g - r).abs(), nan=math.inf).max()) if got.numel() else 0.0
            print(f"{tag} {dtype:4s}{str(list(got.shape)):18s} max abs {abs_err:.3e}  "
                  f"mismatches {mismatches} (exact)  {'PASS' if ok else 'FAIL'}")
        else:
            key = dtype + ("red" if kind == "red" and dtype in ("f32", "f64") else "")
            rtol, atol = TOLERANCES[key]
            abs_err, rel_err, ok = compare(got, ref, rtol, atol)
            print(f"{tag} {dtype:4s}{str(list(got.shape)):18s} max abs {abs_err:.3e}  "
                  f"max rel {rel_err:.3e}  (rtol {rtol:g}, atol {atol:g})  "
                  f"{'PASS' if ok else 'FAIL'}")
        all_ok = all_ok and ok
    return all_ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data_dir")
    parser.add_argument("cases", nargs="*", help="default: every folder in DATA_DIR")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    args = parser.parse_args()
    if args.device == "cuda":
        # fp32 means fp32: no TF32 in the reference.
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    cases = args.cases or sorted(d for d in os.listdir(args.data_dir)
                                 if os.path.isdir(os.path.join(args.data_dir, d)))
    print(f"torch {torch.__version__}, numpy {np.__version__}, device {args.device}")
    failed = []
    for name in cases:
        if name not in REFS:
            print(f"{name:34s} no reference formula  FAIL")
            failed.append(name)
            continue
        try:
            if not check_case(name, os.path.join(args.data_dir, name), args.device):
                failed.append(name)
        except Exception as error:  # one broken case must not hide the others
            print(f"{name:34s} error: {type(error).__name__}: {error}  FAIL")
            traceback.print_exc(limit=4, file=sys.stdout)
            failed.append(name)
    missing = sorted(set(REFS) - set(cases)) if not args.cases else []
    for name in missing:
        print(f"{name:34s} no data (the CLI run failed?)  FAIL")
    failed += missing
    print(f"{len(cases) - len(set(failed) & set(cases))} passed, {len(set(failed))} failed")
    if failed:
        print("FAILED: " + " ".join(sorted(set(failed))))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
