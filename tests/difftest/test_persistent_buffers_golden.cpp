// PersistentBuffersGoldenTest: what findPersistentBuffers says about many
// fusions, compared as text with what it said before it was made
// near-linear (issue 43: a chain of N normalizations was O(N^2)). The
// fusions: the differential tester's random fusions, random chains of
// normalizations with side branches, new inputs, casts, permutes and
// transcendentals (the shapes the faster walk treats specially), and the
// bundled examples. FUSERLAB_UPDATE_GOLDEN=1 rewrites the file.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/frontend/script.h"
#include "core/ir/bounded_file.h"
#include "core/ir/error.h"
#include "core/scheduler/analysis/persistent_buffers.h"
#include "core/scheduler/analysis/reduction_pattern.h"
#include "tests/difftest/fusion_generator.h"
#include "tests/source_dir.h"

namespace fuserlab::difftest {
namespace {

const std::string kGolden =
    fuserlab::test::sourceDir() + "/tests/difftest/golden/persistent_buffers.txt";

std::string bits(const std::vector<bool>& v) {
  std::string s;
  for (bool b : v) s += b ? '1' : '0';
  return s.empty() ? "-" : s;
}

std::string names(const std::vector<const ir::TensorView*>& tvs) {
  std::string s;
  for (const ir::TensorView* tv : tvs) s += (s.empty() ? "" : ",") + tv->name();
  return s;
}

// One line per fusion (and per buffer): everything findPersistentBuffers
// returns.
std::string describe(const std::string& label, const std::string& source) {
  std::ostringstream out;
  out << label << ": ";
  try {
    const frontend::Script script = frontend::readScript(source, label + ".py");
    const ir::Fusion& fusion = script.fusion();
    const scheduler::ReductionPatternResult pattern = scheduler::analyzeReductionPattern(fusion);
    if (!pattern.pattern) {
      out << "no pattern\n";
      return out.str();
    }
    const scheduler::PersistentBufferInfo info =
        scheduler::findPersistentBuffers(fusion, *pattern.pattern);
    out << info.buffers.size() << " buffers; full row "
        << (info.fullRowAfterReduction ? info.fullRowAfterReduction->name() : "-") << "/"
        << (info.fullRowReduction ? info.fullRowReduction->name() : "-") << "; inputs";
    for (const auto& p : info.projectionInputs)
      out << " " << p.tv->name() << ":" << bits(p.rowAxes);
    out << "; " << info.nonNormalizationBroadcast << "\n";
    for (const scheduler::PersistentBuffer& b : info.buffers) {
      out << "  " << b.tv->name() << " across " << b.reduction->name() << " used by "
          << b.usedAfterBy->name() << " axes " << bits(b.rowAxes)
          << (b.projectable ? " projectable to " + names(b.projectedTo)
                            : " not: " + b.notProjectableReason)
          << (b.recomputesTranscendental ? " transcendental" : "") << "\n";
    }
  } catch (const std::exception& error) {
    out << "error: " << error.what() << "\n";
  }
  return out.str();
}

// splitmix64, as the generator's stream.
struct Random {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
};

// A chain of normalizations over [-1, -1] float tensors reducing axis 1,
// with random extras between them.
std::string randomChain(uint64_t seed) {
  Random random{seed};
  std::ostringstream s;
  s << "from nvfuser import FusionDefinition, DataType\n"
       "with FusionDefinition() as fd:\n"
       "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
       "dtype=DataType.Float)\n";
  int next = 1;
  auto fresh = [&] { return "T" + std::to_string(next++); };
  std::vector<std::string> values = {"T0"};  // rank-2 tensors
  std::string x = "T0";
  const int steps = 2 + random.below(7);
  for (int step = 0; step < steps; ++step) {
    const int kind = random.below(10);
    const std::string y = fresh();
    if (kind <= 3) {  // x - broadcast(sum(x)), or of an earlier value
      const std::string source =
          random.below(4) == 0 ? values[random.below(int(values.size()))] : x;
      const std::string& r = y;
      const std::string b = fresh(), z = fresh();
      if (random.below(3) == 0) {
        const std::string m = fresh();
        s << "    " << r << ", " << m << " = fd.ops.var_mean(" << source
          << ", dims=[1], correction=0, keepdim=False)\n";
      } else {
        s << "    " << r << " = fd.ops.sum(" << source << ", dims=[1], keepdim=False, "
          << "dtype=DataType.Null)\n";
      }
      s << "    " << b << " = fd.ops.broadcast(" << r << ", is_broadcast_dim=[False, True])\n";
      const std::string other = random.below(3) == 0 ? values[random.below(int(values.size()))] : x;
      s << "    " << z << " = fd.ops.sub(" << other << ", " << b << ")\n";
      x = z;
    } else if (kind == 4) {  // a new input mixed in
      s << "    " << y << " = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
        << "dtype=DataType.Float)\n";
      const std::string z = fresh();
      s << "    " << z << " = fd.ops.mul(" << x << ", " << y << ")\n";
      values.push_back(y);
      x = z;
    } else if (kind == 5) {  // a transcendental
      s << "    " << y << " = fd.ops.exp(" << x << ")\n";
      x = y;
    } else if (kind == 6) {  // through half precision and back
      const std::string z = fresh();
      s << "    " << y << " = fd.ops.cast(" << x << ", dtype=DataType.Half)\n";
      s << "    " << z << " = fd.ops.cast(" << y << ", dtype=DataType.Float)\n";
      x = z;
    } else if (kind == 7) {  // a side output
      s << "    " << y << " = fd.ops.neg(" << x << ")\n";
      s << "    fd.add_output(" << y << ")\n";
    } else if (kind == 8) {  // combine with an earlier value
      s << "    " << y << " = fd.ops.add(" << x << ", " << values[random.below(int(values.size()))]
        << ")\n";
      x = y;
    } else {  // a reshape-like op the projection does not recompute
      s << "    " << y << " = fd.ops.permute(" << x << ", dims=[1, 0])\n";
      const std::string z = fresh();
      s << "    " << z << " = fd.ops.permute(" << y << ", dims=[1, 0])\n";
      x = z;
    }
    values.push_back(x);
  }
  s << "    fd.add_output(" << x << ")\n";
  return s.str();
}

std::string everything() {
  std::string text;
  GeneratorOptions options;
  options.maxOps = 30;
  options.columnSums = false;  // the fusions the golden file was written for
  options.groupedRows = false;
  for (uint64_t seed = 1; seed <= 1500; ++seed) {
    const std::string d =
        describe("random " + std::to_string(seed), renderScript(generateFusion(seed, options)));
    if (d.find("no pattern") == std::string::npos) text += d;
  }
  for (uint64_t seed = 1; seed <= 1500; ++seed) {
    text += describe("chain " + std::to_string(seed), randomChain(seed));
  }
  std::vector<std::string> examples;
  for (const auto& entry :
       std::filesystem::directory_iterator(fuserlab::test::sourceDir() + "/resources/examples")) {
    if (entry.path().extension() == ".py") examples.push_back(entry.path().string());
  }
  std::sort(examples.begin(), examples.end());
  for (const std::string& path : examples) {
    text += describe(std::filesystem::path(path).filename().string(),
                     ir::readUserFile(path, "script", ir::kMaxScriptBytes));
  }
  return text;
}

TEST(PersistentBuffersGoldenTest, ResultsAreThoseOfTheQuadraticWalk) {
  const std::string text = everything();
  if (std::getenv("FUSERLAB_UPDATE_GOLDEN") != nullptr) {
    std::filesystem::create_directories(std::filesystem::path(kGolden).parent_path());
    std::ofstream(kGolden) << text;
    GTEST_SKIP() << "wrote " << kGolden;
  }
  const std::string golden = ir::readUserFile(kGolden, "golden file", 64 << 20);
  if (text == golden) return;
  std::istringstream a(text), b(golden);
  std::string lineA, lineB;
  for (int line = 1;; ++line) {
    const bool moreA = static_cast<bool>(std::getline(a, lineA));
    const bool moreB = static_cast<bool>(std::getline(b, lineB));
    if (!moreA && !moreB) break;
    ASSERT_EQ(lineA, lineB) << "first difference at line " << line << " of " << kGolden;
  }
}

}  // namespace
}  // namespace fuserlab::difftest
