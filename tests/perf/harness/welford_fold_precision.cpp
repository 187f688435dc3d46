// The precision of an outer var_mean thread's fold, simulated in float on
// the host: 16 steps of 8-row chunks (each chunk's mean and m2 in two
// passes, as the generated loop computes them) folded by Chan's combine
// (fl::welford_fold_lanes, the fold where the rows do not tile every block)
// and as sums shifted by the first chunk's mean (fl::shifted_fold_lanes and
// shifted_to_welford, where they do). Prints the worst relative error of
// m2 or of the mean (against |mean| + std) over 2000 draws of each data
// kind, against double sums. Not built by CMake:
//
//   g++ -O2 -o welford_fold_precision tests/perf/harness/welford_fold_precision.cpp
//   ./welford_fold_precision
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {

constexpr int kSteps = 16;
constexpr int kRows = 8;

struct Data {
  const char* name;
  double mean, std, trend, firstChunkOffset;
};

struct Errors {
  double chan = 0, shifted = 0;
};

Errors worstErrors(const Data& d, std::mt19937& rng) {
  Errors worst;
  std::normal_distribution<double> normal(d.mean, d.std);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<float> x(kSteps * kRows);
    for (int i = 0; i < (int)x.size(); ++i) {
      x[i] = (float)(normal(rng) + d.trend * i + (i < kRows ? d.firstChunkOffset : 0.0));
    }
    double sum = 0;
    for (float v : x) sum += v;
    const double mean = sum / x.size();
    double m2 = 0;
    for (float v : x) m2 += (v - mean) * (v - mean);

    float avg = 0, chanM2 = 0;
    long long n = 0;
    float k = 0, a = 0, b = 0, m = 0;
    for (int step = 0; step < kSteps; ++step) {
      float s = 0;
      for (int u = 0; u < kRows; ++u) s += x[step * kRows + u];
      const float chunkAvg = s / (float)kRows;
      float chunkM2 = 0;
      for (int u = 0; u < kRows; ++u) {
        const float dev = x[step * kRows + u] - chunkAvg;
        chunkM2 += dev * dev;
      }
      if (n == 0) {
        avg = chunkAvg;
        chanM2 = chunkM2;
      } else {
        const float ratio = n == kRows ? 0.5f : (float)kRows / (float)(n + kRows);
        const float delta = chunkAvg - avg;
        chanM2 = chanM2 + chunkM2 + delta * delta * (float)n * ratio;
        avg = avg + delta * ratio;
      }
      n += kRows;
      if (step == 0) k = chunkAvg;
      const float e = chunkAvg - k;
      a += e;
      b += e * e;
      m += chunkM2;
    }
    const float meanE = a / (float)kSteps;
    const float spread = b - a * meanE;
    const float shiftedM2 = m + (float)kRows * (spread > 0 ? spread : 0);
    const float shiftedAvg = k + meanE;
    const double scale = std::fabs(mean) + d.std;
    worst.chan = std::fmax(worst.chan,
                           std::fmax(std::fabs(chanM2 - m2) / m2, std::fabs(avg - mean) / scale));
    worst.shifted = std::fmax(worst.shifted, std::fmax(std::fabs(shiftedM2 - m2) / m2,
                                                       std::fabs(shiftedAvg - mean) / scale));
  }
  return worst;
}

}  // namespace

int main() {
  std::mt19937 rng(3);
  const Data kinds[] = {{"N(0, 1)", 0, 1, 0, 0},
                        {"N(100, 1)", 100, 1, 0, 0},
                        {"N(1e4, 1)", 1e4, 1, 0, 0},
                        {"N(1, 1e-3)", 1, 1e-3, 0, 0},
                        {"N(3, 1) + 0.01 a row", 3, 1, 0.01, 0},
                        {"N(0, 1) + 0.5 a row", 0, 1, 0.5, 0},
                        {"N(0, 1), first chunk + 1e3", 0, 1, 0, 1e3}};
  std::printf("%-30s %12s %12s\n", "data", "chan", "shifted");
  for (const Data& d : kinds) {
    const Errors e = worstErrors(d, rng);
    std::printf("%-30s %12.3g %12.3g\n", d.name, e.chan, e.shifted);
  }
  return 0;
}
