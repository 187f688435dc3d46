// Script: what FuserLab reads from an nvFuser repro file. The fusion
// definitions it declares (`def f(fd: FusionDefinition)`), the one the file
// builds (`with FusionDefinition() as fd: f(fd)`), and its `inputs = [...]`
// block as plain descriptions of torch constructor calls. Nothing here runs
// Python or depends on the runtime: the CLI turns InputSpecs into tensors.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/error.h"
#include "core/ir/fusion.h"

namespace fuserlab::frontend {

//! One fusion definition function of the script, read into a Fusion.
struct FusionDefinitionScript {
  std::string functionName;
  SourceLocation location;  //!< the `def` line
  std::unique_ptr<ir::Fusion> fusion;
};

//! The torch constructor that makes one input tensor.
enum class TensorConstructor : uint8_t {
  Randn,       //!< torch.randn
  Rand,        //!< torch.rand
  Randint,     //!< torch.randint(low, high, size)
  MakeTensor,  //!< torch.testing.make_tensor(size, low=, high=)
  Ones,
  Zeros,
  Full,        //!< torch.full(size, value)
  Arange,      //!< torch.arange(start, end, step)
};

//! One entry of the `inputs = [...]` block.
struct InputSpec {
  bool isScalar = false;
  ir::ScalarValue scalar;  //!< for a plain Python number entry

  TensorConstructor constructor = TensorConstructor::Randn;
  ir::DataType dtype = ir::DataType::Float;  //!< torch's default is float32
  std::vector<int64_t> sizes;  //!< the constructor's size
  std::optional<double> low;   //!< make_tensor / randint
  std::optional<double> high;
  std::optional<double> value;  //!< full
  double start = 0, step = 1;   //!< arange
  std::string device = "cpu";   //!< "cuda:0" etc., as written
  //! `.as_strided(sizes, strides[, offset])` applied to the constructed tensor.
  std::optional<std::vector<int64_t>> stridedSizes;
  std::optional<std::vector<int64_t>> stridedStrides;
  int64_t stridedOffset = 0;

  SourceLocation location;
};

struct Script {
  std::string fileName;
  std::vector<FusionDefinitionScript> definitions;
  //! Index into `definitions` of the one the `with FusionDefinition()` block
  //! builds (the last one built if several; the only one if no block).
  size_t executed = 0;
  //! The `inputs = [...]` block, if the file has one.
  std::optional<std::vector<InputSpec>> inputs;

  ir::Fusion& fusion() const { return *definitions.at(executed).fusion; }
};

//! Reads an nvFuser repro script. Errors are UserErrors with file:line:column,
//! the line and a caret, and say what was expected.
Script readScript(std::string_view source, const std::string& fileName);
//! Reads the script from a file (a missing file is a UserError).
Script readScriptFile(const std::string& path);

//! Prints `fusion` as an nvFuser Python script with one definition function
//! named `functionName` (and, with `withBoilerplate`, the imports and the
//! `with FusionDefinition() as fd:` block) that reads back to the same IR.
std::string writeScript(const ir::Fusion& fusion,
                        const std::string& functionName = "nvfuser_fusion_id0",
                        bool withBoilerplate = true);

}  // namespace fuserlab::frontend
