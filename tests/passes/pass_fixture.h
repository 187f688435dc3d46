// The fixture of the pass tests (IR in, IR out): a fusion read from the body
// of a FusionDefinition script, one pass run on it, and the printed fusion_ir
// compared as text with the expected one written beside the script.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/frontend/script.h"
#include "core/ir/error.h"
#include "core/ir/printer.h"
#include "core/passes/pass.h"
#include "tests/source_dir.h"

namespace fuserlab::passes::test {

class PassFixture : public ::testing::Test {
 protected:
  //! Reads one definition whose body is `body` (lines without indentation).
  void read(std::string_view body) {
    std::ostringstream source;
    source << "from nvfuser import FusionDefinition, DataType\n\n"
           << "def fusion(fd : FusionDefinition) -> None :\n";
    std::istringstream lines{std::string(body)};
    std::string line;
    while (std::getline(lines, line)) source << "    " << line << "\n";
    adopt(frontend::readScript(source.str(), "test.py"));
  }

  //! Reads a bundled script, e.g. "resources/examples/rope.py".
  void readFile(const std::string& relative) {
    adopt(frontend::readScriptFile(fuserlab::test::sourceDir() + "/" + relative));
  }

  //! Runs `pass` on the fusion and returns what it recorded.
  PassRecord run(const Pass& pass, const PassOptions& options = {}) {
    PassRecord record;
    record.name = std::string(pass.name());
    pass.run(*fusion_, options, record);
    return record;
  }

  std::string ir() const { return ir::printFusionIr(*fusion_); }

  //! The golden comparison: the printed fusion, as text. A build with
  //! -DFUSERLAB_GOLDEN_OUT=\"path\" also appends each printed fusion to
  //! that file, to review and paste when a golden must change.
  void expectIr(const std::string& expected) const {
#ifdef FUSERLAB_GOLDEN_OUT
    std::ofstream out(FUSERLAB_GOLDEN_OUT, std::ios::app);
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    out << "@@@ " << info->name() << "\n" << ir() << "@@@END\n";
#endif
    EXPECT_EQ(ir(), expected);
  }

  //! The tensor the script named `name` ("T3").
  ir::TensorView* tensor(const std::string& name) const {
    for (const auto& val : fusion_->vals()) {
      if (val->scriptName() == name) return val->as<ir::TensorView>();
    }
    ADD_FAILURE() << "the script names no tensor " << name;
    return nullptr;
  }

  std::unique_ptr<ir::Fusion> fusion_;

 private:
  void adopt(frontend::Script script) {
    fusion_ = std::move(script.definitions.at(script.executed).fusion);
  }
};

//! Runs `fn` and expects a UserError whose message contains each fragment.
template <typename Fn>
void expectUserError(Fn&& fn, const std::vector<std::string>& fragments) {
  try {
    fn();
    ADD_FAILURE() << "expected a UserError mentioning '"
                  << (fragments.empty() ? "" : fragments.front()) << "'";
  } catch (const UserError& error) {
    for (const std::string& fragment : fragments) {
      EXPECT_NE(error.message().find(fragment), std::string::npos)
          << "message '" << error.message() << "' lacks '" << fragment << "'";
    }
  }
}

}  // namespace fuserlab::passes::test
