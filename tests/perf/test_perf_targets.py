#!/usr/bin/env python3
"""Tests of perf_targets.py (issue 6's targets judged on compare_torch rows)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import perf_targets  # noqa: E402


def row(case, fl, eager=None, compile_=None, pct=None, mb=None, host=None, launches=1):
    return {"case": case, "fuserlab": fl, "eager": eager, "compile": compile_, "pct": pct,
            "mb": mb, "host_us_per_launch": host, "launches": launches}


class PerfTargetsTest(unittest.TestCase):
    BANDWIDTH, COMPILE, EAGER, HOST = range(4)

    def verdict(self, rows, which):
        _, met, detail = perf_targets.evaluate(rows)[which]
        return met, detail

    def test_bandwidth_counts_only_big_memory_bound_fusions(self):
        rows = [row("col_sum", 26.6, pct=84.5, mb=67),
                row("row_sum", 25.0, pct=90.2, mb=67),
                row("small", 5.0, pct=40.0, mb=8),  # under 64 MB: not judged
                row("linear_bias_gelu", 350.0, pct=15.9, mb=168),  # a matmul
                row("two_fusions.nvfuser_fusion_id1", 10.0, pct=70.0, mb=25)]
        met, detail = self.verdict(rows, self.BANDWIDTH)
        self.assertFalse(met)
        self.assertEqual(detail, "1 of 2 (under: col_sum 84.5%)")
        # The share over the kernels' own time (CUPTI) is said beside a
        # miss but judges nothing.
        rows[0]["kernel_pct"] = 93.3
        met, detail = self.verdict(rows, self.BANDWIDTH)
        self.assertFalse(met)
        self.assertEqual(detail, "1 of 2 (under: col_sum 84.5% (93.3% over its kernels' own time))")
        rows[0]["pct"] = 85.0  # the line itself is met
        met, detail = self.verdict(rows, self.BANDWIDTH)
        self.assertTrue(met)
        self.assertEqual(detail, "2 of 2")

    def test_compile_geomean_and_lowest(self):
        rows = [row("a", 10.0, compile_=12.0), row("b", 10.0, compile_=9.0)]
        met, detail = self.verdict(rows, self.COMPILE)
        self.assertTrue(met)
        self.assertEqual(detail, "geomean 1.04, lowest b 0.90")
        rows.append(row("c", 10.0, compile_=7.9))  # one below 0.8 fails it
        met, _ = self.verdict(rows, self.COMPILE)
        self.assertFalse(met)

    def test_eager_geomean(self):
        rows = [row("a", 10.0, eager=40.0), row("b", 10.0, eager=10.0)]
        self.assertIn("eager", perf_targets.evaluate(rows)[self.EAGER][0])
        met, detail = self.verdict(rows, self.EAGER)
        self.assertTrue(met)
        self.assertEqual(detail, "geomean 2.00")

    def test_host_time_of_single_kernel_runs(self):
        rows = [row("a", 10.0, host=1.6), row("b", 10.0, host=5.22),
                row("c", 10.0, host=9.0, launches=2)]  # two kernels: not judged
        met, detail = self.verdict(rows, self.HOST)
        self.assertFalse(met)
        self.assertEqual(detail, "1 of 2, 1.60 to 5.22 us (over: b 5.22)")

    def test_nothing_timed_is_not_applicable(self):
        for _, met, _ in perf_targets.evaluate([row("a", None)]):
            self.assertIsNone(met)
        self.assertTrue(all("n/a" in line for line in perf_targets.lines([])))


if __name__ == "__main__":
    unittest.main()
