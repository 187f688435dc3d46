// Upcast privatization (seed 000, nvFuser #3776): an upcast (a cast to a wider
// floating type) whose result has several uses is cloned so that each use but
// the first reads its own copy. A segment boundary can then fall on the
// narrow input of the cast instead of its wide result, and every segment
// keeps the cast in view: a normalization scheduler still sees that its
// persistent buffer can be projected to the narrow input. Copies that end up
// in the same segment are reverted to one cast after merging.
#pragma once

#include <unordered_set>
#include <vector>

#include "core/ir/fusion.h"
#include "core/segmenter/decision_log.h"
#include "core/segmenter/group_merger.h"

namespace fuserlab::segmenter {

//! One privatized upcast: the original cast and the copies made of it.
struct PrivatizedUpcast {
  ir::Expr* original = nullptr;
  std::vector<ir::Expr*> copies;
};

//! Clones every multi-use upcast of `fusion` per use (the first use keeps
//! the original); logs one "privatize" decision per upcast. Upcasts in
//! `keep` (those a library call's epilogue computes inside the call) are
//! left alone.
std::vector<PrivatizedUpcast> privatizeUpcasts(
    ir::Fusion& fusion, const DecisionLog& log,
    const std::unordered_set<const ir::Expr*>& keep = {});

//! Within each group, replaces the copies of an upcast by one of them (the
//! one that is a fusion output, else the first) and removes the others from
//! `fusion` and the group; logs "revert_privatize" for each upcast whose
//! copies met in a group (accepted) or stayed apart (not accepted).
void revertPrivatizedUpcasts(ir::Fusion& fusion, const std::vector<PrivatizedUpcast>& upcasts,
                             std::vector<CandidateGroup>& groups, const DecisionLog& log);

}  // namespace fuserlab::segmenter
