#include "core/codegen/reduction/reduction_emitter_welford.h"

namespace fuserlab::codegen {
namespace {

using Kind = ReductionStep::Kind;

// An inner reduction's chunk of row k folded into `acc`: its count and
// sum over the steps u in range and the V lanes of each, its mean, its
// squared deviations from that mean (two passes over registers, so data
// far from zero loses no precision), then one Chan combine.
void emitChunkFold(ReductionKernelBuilder& b, int in, const std::string& T, const std::string& wf,
                   const std::string& acc, const std::string& UR, const std::string& ok,
                   const std::string& V) {
  const std::string skip = ok == "true" ? "" : "if (!(" + ok + ")) continue;";
  b.line(in, "int n = 0;");
  b.line(in, T + " sum = " + T + "(0);");
  b.line(in, "#pragma unroll");
  b.line(in, "for (int u = 0; u < " + UR + "; ++u) {");
  if (!skip.empty()) b.line(in + 2, skip);
  b.line(in + 2, "n += " + V + ";");
  b.line(in + 2, "#pragma unroll");
  b.line(in + 2, "for (int v = 0; v < " + V + "; ++v) sum += " + wf + "[u][k][v];");
  b.line(in, "}");
  b.line(in, "if (n == 0) continue;");
  b.line(in, "fl::Welford<" + T + "> w;");
  b.line(in, "w.n = n;");
  b.line(in, "w.avg = sum / (" + T + ")n;");
  b.line(in, "w.m2 = " + T + "(0);");
  b.line(in, "#pragma unroll");
  b.line(in, "for (int u = 0; u < " + UR + "; ++u) {");
  if (!skip.empty()) b.line(in + 2, skip);
  b.line(in + 2, "#pragma unroll");
  b.line(in + 2, "for (int v = 0; v < " + V + "; ++v) {");
  b.line(in + 4, "const " + T + " d = " + wf + "[u][k][v] - w.avg;");
  b.line(in + 4, "w.m2 += d * d;");
  b.line(in + 2, "}");
  b.line(in, "}");
  b.line(in, acc + " = fl::welford_combine(" + acc + ", w);");
}

}  // namespace

bool hasWelfordStep(const ReductionKernelBuilder& b) {
  for (const ReductionStep& step : b.plan().steps) {
    if (step.kind == Kind::Welford) return true;
  }
  return false;
}

void declareWelfordChunks(ReductionKernelBuilder& b, int in, const std::string& UR,
                          const std::string& UIT, const std::string& V) {
  for (const ReductionStep& step : b.plan().steps) {
    if (step.kind != Kind::Welford) continue;
    b.line(in, std::string(valueType(step.compute)) + " " + b.welfordChunkName(step) + "[" + UR +
                   "][" + UIT + "][" + V + "];");
  }
}

void foldInnerWelfordChunks(ReductionKernelBuilder& b, int in, const std::string& UR,
                            const std::string& UIT, const std::string& V, const std::string& ok) {
  for (const ReductionStep& step : b.plan().steps) {
    if (step.kind != Kind::Welford) continue;
    b.line(in, "#pragma unroll");
    b.line(in, "for (int k = 0; k < " + UIT + "; ++k) {");
    emitChunkFold(b, in + 2, std::string(valueType(step.compute)), b.welfordChunkName(step),
                  b.accumulator(step) + "[k]", UR, ok, V);
    b.line(in, "}");
  }
}

void foldOuterWelfordChunks(ReductionKernelBuilder& b, int in, const std::string& UR,
                            const std::string& UIT, const std::string& V, const std::string& ok,
                            bool shifted) {
  const std::string skip = ok == "true" ? "" : "if (!(" + ok + ")) continue;";
  for (const ReductionStep& step : b.plan().steps) {
    if (step.kind != Kind::Welford) continue;
    const std::string T(valueType(step.compute));
    const std::string wf = b.welfordChunkName(step);
    auto overRows = [&](int at, const std::string& statement) {
      b.line(at, "#pragma unroll");
      b.line(at, "for (int u = 0; u < " + UR + "; ++u) {");
      if (!skip.empty()) b.line(at + 2, skip);
      b.line(at + 2, statement);
      b.line(at, "}");
    };
    // The V lanes of column group k count the same rows, so their chunks
    // fold in with one count and one ratio (welford_fold_lanes) rather
    // than V welford_combine calls, each converting its count and dividing.
    b.line(in, "#pragma unroll");
    b.line(in, "for (int k = 0; k < " + UIT + "; ++k) {");
    b.line(in + 2, "int n = 0;");
    overRows(in + 2, "++n;");
    b.line(in + 2, "if (n == 0) continue;");
    b.line(in + 2, T + " c_avg[" + V + "];");
    b.line(in + 2, T + " c_m2[" + V + "];");
    b.line(in + 2, "#pragma unroll");
    b.line(in + 2, "for (int v = 0; v < " + V + "; ++v) {");
    b.line(in + 4, T + " sum = " + T + "(0);");
    overRows(in + 4, "sum += " + wf + "[u][k][v];");
    b.line(in + 4, "c_avg[v] = sum / (" + T + ")n;");
    b.line(in + 4, "c_m2[v] = " + T + "(0);");
    overRows(in + 4, "{ const " + T + " d = " + wf + "[u][k][v] - c_avg[v]; c_m2[v] += d * d; }");
    b.line(in + 2, "}");
    if (shifted) {
      const std::string steps = b.accumulator(step) + "_steps[k]";
      b.line(in + 2, "fl::shifted_fold_lanes(" + b.accumulator(step) + "_sh, k * " + V +
                         ", c_avg, c_m2, " + steps + " == 0);");
      b.line(in + 2, "++" + steps + ";");
    } else {
      b.line(in + 2,
             "fl::welford_fold_lanes(" + b.accumulator(step) + ", k * " + V + ", c_avg, c_m2, n);");
    }
    b.line(in, "}");
  }
}

void declareShiftedChunks(ReductionKernelBuilder& b, int in, const std::string& NS,
                          const std::string& UIT) {
  b.line(in, "// The rows tile every block's range: every step of every thread holds a");
  b.line(in, "// full chunk of rows, so its chunks fold as sums shifted by its first");
  b.line(in, "// chunk's mean (no division a step), and the combines add means of equal counts.");
  for (const ReductionStep& step : b.plan().steps) {
    if (step.kind != Kind::Welford) continue;
    const std::string acc = b.accumulator(step);
    b.line(in, "fl::ShiftedChunks<" + std::string(valueType(step.compute)) + "> " + acc + "_sh[" +
                   NS + "];");
    b.line(in, "fl::shifted_identity(" + acc + "_sh);");
    b.line(in, "int " + acc + "_steps[" + UIT + "] = {};");
  }
}

void finishShiftedChunks(ReductionKernelBuilder& b, int in, const std::string& UR,
                         const std::string& UIT, const std::string& V) {
  for (const ReductionStep& step : b.plan().steps) {
    if (step.kind != Kind::Welford) continue;
    const std::string acc = b.accumulator(step);
    b.line(in, "#pragma unroll");
    b.line(in, "for (int k = 0; k < " + UIT + "; ++k) {");
    b.line(in + 2, "fl::shifted_to_welford<" + V + ">(" + acc + ", k * " + V + ", " + acc +
                       "_sh, " + acc + "_steps[k], " + UR + ");");
    b.line(in, "}");
  }
}

void emitTwoPassWelford(ReductionKernelBuilder& b, int in, const std::string& UR,
                        const std::string& UIT, const std::string& V, const std::string& ok,
                        int64_t threadsX, int64_t threadsY) {
  const std::string allreduce =
      "fl::red::row_allreduce<" + std::to_string(threadsX) + ", " + std::to_string(threadsY) + ">(";
  const std::string n = literal(b.layout().rowLength);
  b.line(in, "// Welford in two passes over the row in registers: its mean, then");
  b.line(in, "// the squared deviations from it.");
  for (const ReductionStep& step : b.plan().steps) {
    if (step.kind != Kind::Welford) continue;
    const std::string T(valueType(step.compute));
    const std::string wf = b.welfordChunkName(step);
    const std::string acc = b.accumulator(step);
    const std::string smem = "reinterpret_cast<" + T + "*>(fl_smem)";
    auto overChunk = [&](const std::string& statement) {
      b.line(in + 2, "#pragma unroll");
      b.line(in + 2, "for (int u = 0; u < " + UR + "; ++u) {");
      if (ok != "true") b.line(in + 4, "if (!(" + ok + ")) continue;");
      b.line(in + 4, "#pragma unroll");
      b.line(in + 4, "for (int v = 0; v < " + V + "; ++v) " + statement);
      b.line(in + 2, "}");
    };
    b.line(in, "#pragma unroll");
    b.line(in, "for (int k = 0; k < " + UIT + "; ++k) {");
    b.line(in + 2, T + " sum = " + T + "(0);");
    overChunk("sum += " + wf + "[u][k][v];");
    b.line(in + 2, "const " + T + " mean = " + allreduce + "sum, fl::SumOp<" + T + ">(), " + smem +
                       ") / (" + T + ")" + n + ";");
    b.line(in + 2, T + " m2 = " + T + "(0);");
    overChunk("{ const " + T + " d = " + wf + "[u][k][v] - mean; m2 += d * d; }");
    b.line(in + 2, acc + "[k].avg = mean;");
    b.line(in + 2, acc + "[k].m2 = " + allreduce + "m2, fl::SumOp<" + T + ">(), " + smem + ");");
    b.line(in + 2, acc + "[k].n = " + n + ";");
    b.line(in, "}");
  }
}

}  // namespace fuserlab::codegen
