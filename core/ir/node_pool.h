// Node pool: the memory of IR nodes (Vals, Exprs, IterDomains, transforms).
// The segmenter builds and drops a segment fusion for every merge it tries,
// hundreds per compile, each of a few hundred small nodes; the general
// allocator then spends more time than the build itself. Freed nodes go to a
// free list of their size on the freeing thread and are reused by the next
// node of that size, so after the first tries a segment's nodes cost no call
// into the allocator. Nothing here is shared between threads: a node freed on
// another thread than it was made on simply joins that thread's list.
#pragma once

#include <cstddef>

namespace fuserlab::ir {

//! Memory for a node of `bytes` bytes (aligned as operator new's).
void* allocateNode(std::size_t bytes);
//! Returns a node's memory; `bytes` is the size it was allocated with.
void releaseNode(void* node, std::size_t bytes) noexcept;

//! How many freed nodes of `bytes`' size class this thread holds for reuse
//! (for tests and diagnostics).
std::size_t freeNodesOfSize(std::size_t bytes);

//! Gives an IR node class its memory from the node pool.
#define FL_POOLED_NODE                                                                         \
  static void* operator new(std::size_t bytes) { return ::fuserlab::ir::allocateNode(bytes); } \
  static void operator delete(void* node, std::size_t bytes) noexcept {                        \
    ::fuserlab::ir::releaseNode(node, bytes);                                                  \
  }

}  // namespace fuserlab::ir
