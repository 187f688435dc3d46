// The `fusion_ir` dump: a Fusion as text, in the spirit of nvFuser's printer.
// Deterministic: everything is printed in creation order.
#pragma once

#include <string>

namespace fuserlab::ir {

class Fusion;
class TensorView;

//! Inputs, outputs, and one entry per live Expr, followed by the domains of
//! tensors whose root or allocation differs from their logical domain.
std::string printFusionIr(const Fusion& fusion);

//! The root, logical, allocation and loop domains of a tensor and the
//! Split/Merge transforms between them.
std::string printDomains(const TensorView& tv);

}  // namespace fuserlab::ir
