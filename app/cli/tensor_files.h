// Saving the tensors of a run: one .npy per tensor plus manifest.json
// (name, dtype, shape, strides; the value of scalars). Half and BFloat16 are
// saved as float32, which holds them exactly.
#pragma once

#include <string>
#include <vector>

#include "core/tensor/argument.h"

namespace fuserlab::cli {

struct NamedValue {
  std::string name;      //!< the IR name, e.g. T3
  std::string fileStem;  //!< e.g. input_0
  runtime::Argument value;
};

//! Writes `values` under `directory` (created if missing).
void saveTensors(const std::string& directory, const std::vector<NamedValue>& values);

}  // namespace fuserlab::cli
