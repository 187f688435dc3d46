// Whether a kernel may write an output straight into the input it aliases
// (`add_output(out, alias_input=in)`). In place is right only when no thread
// can read an element of the input after another thread (or a later
// kernel) wrote it: the segment is pointwise, every value derived from the
// input inside it flows only through elementwise ops of the same axes (no
// broadcast, view, reduction or gather moves an element to another
// thread), and no other segment reads the input. Otherwise the executor
// writes the output into a fresh buffer and copies it into the input after
// the run's last kernel.
#pragma once

#include "core/ir/fusion.h"
#include "core/scheduler/scheduler_type.h"
#include "core/tensor/tensor.h"

namespace fuserlab::runtime {

//! `input` is a tensor input of `segment`, which `scheduler` runs; whether
//! every read of it inside the segment happens in the thread that writes
//! the same element of an output of the input's shape.
bool readsOnlyInPlace(const ir::Fusion& segment, const ir::Val* input,
                      scheduler::SchedulerType scheduler);

//! Whether a non-aliased output of `fusion` is the input `input` itself or
//! a view of it (reached through view ops only): such an output must keep
//! the input's old values, so the input cannot be updated in place before
//! that output is copied.
bool hasOutputViewOf(const ir::Fusion& fusion, const ir::Val* input);

//! Whether the elements `a` and `b` address overlap (byte ranges).
bool sharesMemory(const Tensor& a, const Tensor& b);

}  // namespace fuserlab::runtime
