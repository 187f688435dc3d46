// Welford-based statistics: welford, var and var_mean, built like nvFuser's:
// a Welford Expr (avg, var_sum, count) followed by var = var_sum / (N -
// correction), where N is the product of the reduced extents.
#pragma once

#include <vector>

#include "core/ir/fusion.h"

namespace fuserlab::ops {

struct WelfordResult {
  ir::TensorView* avg;
  ir::TensorView* varSum;
  ir::TensorView* count;  //!< Int
};

struct VarMeanResult {
  ir::TensorView* var;
  ir::TensorView* mean;
};

//! Welford over `axes`; the input is cast to Float first if it is Half or
//! BFloat16 (outputs are Float, or Double for a Double input).
WelfordResult welford(ir::TensorView* x, const std::vector<int64_t>& axes);
VarMeanResult varMean(ir::TensorView* x, const std::vector<int64_t>& axes, double correction = 1.0,
                      bool keepDim = false);
ir::TensorView* var(ir::TensorView* x, const std::vector<int64_t>& axes, double correction = 1.0,
                    bool keepDim = false);

}  // namespace fuserlab::ops
