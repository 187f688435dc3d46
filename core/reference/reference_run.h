// Running a whole fusion on the CPU reference backend: bind the inputs through
// their allocation domains, evaluate every op with the reference executor, lay
// the outputs out as their allocation domains ask, and write aliased outputs
// back into their inputs. This is `fuserlab-cli run --backend cpu` and the
// oracle of every GPU test.
#pragma once

#include <vector>

#include "core/ir/fusion.h"
#include "core/tensor/argument.h"

namespace fuserlab::runtime {

//! One Tensor per fusion output (0-dim for scalar outputs). Inputs that an
//! output aliases (`add_output(T, alias_input=I)`) are updated in place.
std::vector<Tensor> runReference(const ir::Fusion& fusion, const Arguments& inputs);

}  // namespace fuserlab::runtime
