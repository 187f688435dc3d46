#!/usr/bin/env python3
"""Instruments a generated kernel for a block timeline.

    trace_marks.py KERNEL.cu OUT.cu

Copies KERNEL.cu (as `fuserlab-cli compile --out DIR` wrote it) to OUT.cu
with timeline marks: thread (0, 0) of each block writes the global timer
into `fl_trace[block][mark]` at the kernel's entry, before and after every
block or grid combine (`col_allreduce`, `col_reduce`, `grid_sync`,
`cluster_sync`, `rank0_wait`, ...) and before its `grid_sync_reset`. The marks' labels go
to OUT.cu.marks, one a line, in mark order; batch_norm_outer_variants reads
them beside the cubin and prints when each mark was passed.

The first mark after a load loop is thread (0, 0)'s view (its own loads
done); a mark after a combine follows a __syncthreads, so it is the block's.
"""
import re
import sys

COMBINES = re.compile(r"fl::red::(col_allreduce|col_reduce|row_allreduce|grid_sync_reset|grid_sync|"
                      r"cluster_\w+|rank0_wait|arrive_last)\b")
MAX_MARKS = 32

PRELUDE = """
// Timeline marks (tests/perf/harness/trace_marks.py).
__device__ unsigned long long fl_trace[4096 * %d];
#define FL_MARK(k) do { if (threadIdx.x == 0 && threadIdx.y == 0) { unsigned long long t_; \\
  asm volatile("mov.u64 %%0, %%%%globaltimer;" : "=l"(t_) :: "memory"); \\
  fl_trace[(blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x * %d + blockIdx.x * %d + (k)] = t_; } } while (0)
""" % (MAX_MARKS, MAX_MARKS, MAX_MARKS)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: trace_marks.py KERNEL.cu OUT.cu")
    lines = open(sys.argv[1]).read().split("\n")
    out, labels = [], []
    in_kernel = False
    depth = 0

    def mark(label, indent):
        if len(labels) >= MAX_MARKS:
            sys.exit("more than %d marks" % MAX_MARKS)
        out.append("%sFL_MARK(%d);" % (indent, len(labels)))
        labels.append(label)

    for i, line in enumerate(lines):
        if line.startswith('#include "fuserlab_device.cuh"'):
            out.append(line)
            out.append(PRELUDE)
            continue
        if not in_kernel and line.startswith('extern "C" __global__'):
            in_kernel = True
            depth = 0
        if in_kernel:
            m = COMBINES.search(line)
            indent = line[:len(line) - len(line.lstrip())]
            if m and line.rstrip().endswith(";"):
                name = m.group(1)
                if name == "grid_sync_reset":
                    mark("before %s (line %d)" % (name, i + 1), indent)
                    out.append(line)
                    continue
                mark("before %s (line %d)" % (name, i + 1), indent)
                out.append(line)
                mark("after %s (line %d)" % (name, i + 1), indent)
                continue
            opened = depth
            depth += line.count("{") - line.count("}")
            out.append(line)
            if opened == 0 and depth > 0:
                mark("entry", "  ")
            continue
        out.append(line)
    open(sys.argv[2], "w").write("\n".join(out))
    open(sys.argv[2] + ".marks", "w").write("\n".join(labels) + "\n")
    print("%d marks -> %s" % (len(labels), sys.argv[2]))


if __name__ == "__main__":
    main()
