// Script: what FuserLab reads from an nvFuser repro file. The fusion
// definitions it declares (`def f(fd: FusionDefinition)`), the one the file
// builds (`with FusionDefinition() as fd: f(fd)`), and its `inputs = [...]`
// block as descriptions of torch constructor calls (input_tensors.h turns
// them into tensors). Nothing here runs Python.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/error.h"
#include "core/ir/fusion.h"
#include "core/tensor/random_fill.h"

namespace fuserlab::frontend {

//! One fusion definition function of the script, read into a Fusion.
struct FusionDefinitionScript {
  std::string functionName;
  SourceLocation location;  //!< the `def` line
  std::unique_ptr<ir::Fusion> fusion;
};

//! One entry of the `inputs = [...]` block: a Python number, or a torch
//! constructor call (what it fills the tensor with, its dtype and size) with
//! an optional `.as_strided(...)` view on top.
struct InputSpec {
  bool isScalar = false;
  ir::ScalarValue scalar;  //!< for a plain Python number entry

  runtime::TensorInitializer initializer;
  ir::DataType dtype = ir::DataType::Float;  //!< torch's default is float32
  std::vector<int64_t> sizes;                //!< the constructor's size
  std::string device = "cpu";                //!< "cuda:0" etc., as written
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
  //! The `inputs = [...]` block of the executed definition, if any.
  std::optional<std::vector<InputSpec>> inputs;
  SourceLocation inputsLocation;  //!< where `inputs`' list is
  //! One inputs block: the definition it belongs to, its entries and where
  //! its list is (for errors about the block as a whole, such as an empty
  //! `fd.execute([])`).
  struct InputsBlock {
    size_t definition = 0;
    std::vector<InputSpec> specs;
    SourceLocation location;
  };
  //! Every inputs block, by the index of the definition whose
  //! `with FusionDefinition()` block preceded it (a file may build several
  //! fusions, each with its own inputs and execute).
  std::vector<InputsBlock> inputsByDefinition;

  //! The inputs block that belongs to definition `index`, if any.
  const std::vector<InputSpec>* inputsFor(size_t index) const {
    const InputsBlock* block = inputsBlockFor(index);
    return block ? &block->specs : nullptr;
  }
  const InputsBlock* inputsBlockFor(size_t index) const {
    for (const InputsBlock& block : inputsByDefinition) {
      if (block.definition == index) return &block;
    }
    return nullptr;
  }

  ir::Fusion& fusion() const { return *definitions.at(executed).fusion; }
};

//! Reads an nvFuser repro script. Errors are UserErrors with file:line:column,
//! the line and a caret, and say what was expected.
Script readScript(std::string_view source, const std::string& fileName);
//! Reads the script from a file. A missing file, one that is not a regular
//! file (a pipe, a device, a directory) or one larger than ir::kMaxScriptBytes
//! is a UserError.
Script readScriptFile(const std::string& path);

//! Prints `fusion` as an nvFuser Python script with one definition function
//! named `functionName` (and, with `withBoilerplate`, the imports and the
//! `with FusionDefinition() as fd:` block) that reads back to the same IR.
std::string writeScript(const ir::Fusion& fusion,
                        const std::string& functionName = "nvfuser_fusion_id0",
                        bool withBoilerplate = true);

}  // namespace fuserlab::frontend
