// readScript on real scripts: every bundled example reads, with as many
// inputs-block entries as fusion inputs; and token-level mutations of a
// repro never escape as anything but a UserError (no InternalError, no
// crash), as the libFuzzer target will demand.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/frontend/script.h"
#include "core/ir/error.h"
#include "tests/source_dir.h"

namespace fuserlab::frontend {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> scriptsIn(const std::string& relative) {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(fuserlab::test::sourceDir() + "/" + relative)) {
    if (entry.path().extension() == ".py") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(ScriptExamplesTest, EveryBundledExampleReads) {
  const auto files = scriptsIn("resources/examples");
  ASSERT_GE(files.size(), 25u);
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    Script script;
    try {
      script = readScriptFile(file);
    } catch (const UserError& error) {
      ADD_FAILURE() << error.what();
      continue;
    }
    ASSERT_FALSE(script.definitions.empty());
    EXPECT_FALSE(script.fusion().outputs().empty());
    ASSERT_TRUE(script.inputs.has_value());
    EXPECT_EQ(script.inputs->size(), script.fusion().inputs().size());
    for (size_t i = 0; i < script.inputs->size(); ++i) {
      const InputSpec& spec = (*script.inputs)[i];
      const ir::Val* input = script.fusion().inputs()[i];
      EXPECT_EQ(spec.isScalar, input->isA<ir::Scalar>()) << "input " << i;
      if (!spec.isScalar) {
        EXPECT_EQ(spec.dtype, input->dtype()) << "input " << i;
        const auto& sizes = spec.stridedSizes ? *spec.stridedSizes : spec.sizes;
        EXPECT_EQ(static_cast<int64_t>(sizes.size()), input->as<ir::TensorView>()->rank())
            << "input " << i;
      }
    }
  }
}

TEST(ScriptExamplesTest, CliTestScriptsRead) {
  Script pair =
      readScriptFile(fuserlab::test::sourceDir() + "/tests/cli/scripts/contiguous_pair.py");
  EXPECT_EQ(pair.definitions.at(0).functionName, "add_pair");
  EXPECT_EQ(pair.inputs->size(), 2u);
  try {
    readScriptFile(fuserlab::test::sourceDir() + "/tests/cli/scripts/unknown_op.py");
    ADD_FAILURE() << "unknown_op.py read without error";
  } catch (const UserError& error) {
    ASSERT_TRUE(error.location());
    EXPECT_EQ(error.location()->line, 5);
    EXPECT_NE(error.message().find("frobnicate"), std::string::npos);
  }
}

// Issue 44: a test binary carried to another machine finds the tree where
// the FUSERLAB_SOURCE_DIR environment variable says, not where it was built.
TEST(ScriptExamplesTest, TheEnvironmentNamesTheSourceTree) {
  const char* previous = std::getenv("FUSERLAB_SOURCE_DIR");
  const std::string saved = previous ? previous : "";
  const fs::path elsewhere =
      fs::temp_directory_path() / ("fuserlab-source-" + std::to_string(::getpid()));
  fs::create_directories(elsewhere / "resources" / "examples");
  fs::copy_file(fuserlab::test::sourceDir() + "/resources/examples/layer_norm.py",
                elsewhere / "resources" / "examples" / "moved.py");
  ::setenv("FUSERLAB_SOURCE_DIR", elsewhere.c_str(), 1);
  const std::vector<std::string> files = scriptsIn("resources/examples");
  const std::string dir = fuserlab::test::sourceDir();
  if (previous) {
    ::setenv("FUSERLAB_SOURCE_DIR", saved.c_str(), 1);
  } else {
    ::unsetenv("FUSERLAB_SOURCE_DIR");
  }
  fs::remove_all(elsewhere);
  EXPECT_EQ(dir, elsewhere.string());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(fs::path(files[0]).filename(), "moved.py");
  EXPECT_NE(fuserlab::test::sourceDir(), elsewhere.string());
}

TEST(ScriptExamplesTest, MissingFileIsAUserError) {
  EXPECT_THROW(readScriptFile("/nonexistent/script.py"), UserError);
  EXPECT_THROW(readScriptFile(fuserlab::test::sourceDir()), UserError);
}

// Splits a script into tokens that keep every character (names, numbers,
// single punctuation, runs of spaces), so mutations stay mostly Python.
std::vector<std::string> tokens(const std::string& text) {
  std::vector<std::string> out;
  size_t i = 0;
  auto isWord = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  };
  while (i < text.size()) {
    size_t j = i + 1;
    if (isWord(text[i])) {
      while (j < text.size() && isWord(text[j]) && text[j] != '.') ++j;
    } else if (text[i] == ' ') {
      while (j < text.size() && text[j] == ' ') ++j;
    }
    out.push_back(text.substr(i, j - i));
    i = j;
  }
  return out;
}

TEST(ScriptExamplesTest, MutatedScriptsOnlyRaiseUserErrors) {
  std::vector<std::string> corpus;
  for (const std::string& file : scriptsIn("resources/examples")) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    corpus.push_back(text.str());
  }
  // What a mutation may put in place of a token.
  const std::vector<std::string> pool = {"0",
                                         "1",
                                         "-1",
                                         "2",
                                         "-2",
                                         "3",
                                         "1600",
                                         "9223372036854775807",
                                         "4611686018427387904",
                                         "-9223372036854775807",
                                         "0.0",
                                         "-0.5",
                                         "float('nan')",
                                         "float('inf')",
                                         "1e308",
                                         "None",
                                         "True",
                                         "False",
                                         "[]",
                                         "[0]",
                                         "[-1]",
                                         "[0, 0]",
                                         "[1, 0]",
                                         "[True]",
                                         "[None]",
                                         "()",
                                         "T0",
                                         "T1",
                                         "T2",
                                         "S1",
                                         "V9",
                                         "fd",
                                         "fd.ops",
                                         "DataType.Null",
                                         "DataType.Bool",
                                         "DataType.Int",
                                         "DataType.Half",
                                         "DataType.Double",
                                         "torch.int64",
                                         "torch.bool",
                                         "sum",
                                         "reshape",
                                         "expand",
                                         "permute",
                                         "slice",
                                         "pad",
                                         "cat",
                                         "broadcast_in_dim",
                                         "var_mean",
                                         "welford",
                                         "matmul",
                                         "linear",
                                         "sdpfa_fwd",
                                         "iota",
                                         "full",
                                         "cast",
                                         "where",
                                         "squeeze",
                                         "stride_order",
                                         "set",
                                         "size",
                                         "shape",
                                         "define_scalar",
                                         "define_vector",
                                         "define_tensor",
                                         "add_output",
                                         "alias_input",
                                         "dims",
                                         "shape",
                                         "new_shape",
                                         "broadcast_dims",
                                         "keepdim",
                                         "correction",
                                         "contiguity",
                                         "stride_order",
                                         "is_cpu",
                                         "sizes",
                                         "strides",
                                         "as_strided",
                                         ",",
                                         "(",
                                         ")",
                                         "[",
                                         "]",
                                         "*",
                                         "-",
                                         "**",
                                         "/",
                                         "//",
                                         "%",
                                         "+",
                                         "T0.size(0)",
                                         "T0.shape()",
                                         "fd.ops.add(T0, T0)",
                                         "fd.ops.neg(S1)",
                                         "2**62",
                                         "-2**63",
                                         "R[0]"};
  std::mt19937_64 rng(20260101);
  int userErrors = 0;
  int accepted = 0;
  for (int iteration = 0; iteration < 3000; ++iteration) {
    const std::string& base = corpus[rng() % corpus.size()];
    std::vector<std::string> toks = tokens(base);
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      size_t at = rng() % toks.size();
      if (toks[at] == "\n" || toks[at].front() == ' ') continue;
      toks[at] = pool[rng() % pool.size()];
    }
    std::string mutated;
    for (const std::string& t : toks) mutated += t;
    try {
      Script script = readScript(mutated, "mutated.py");
      ++accepted;
    } catch (const UserError& error) {
      ++userErrors;
      ASSERT_TRUE(error.location().has_value()) << "no location: " << error.what() << "\n"
                                                << mutated;
    } catch (const std::exception& error) {
      FAIL() << "not a UserError: " << error.what() << "\n" << mutated;
    }
  }
  EXPECT_GT(userErrors, 100);
  EXPECT_GT(accepted, 100);
}

}  // namespace
}  // namespace fuserlab::frontend
