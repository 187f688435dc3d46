#include "core/ir/node_pool.h"

#include <new>

namespace fuserlab::ir {
namespace {

// Sizes are rounded up to 16 bytes; nodes above kMaxPooledBytes (none today)
// go straight to the allocator.
constexpr std::size_t kGranule = 16;
constexpr std::size_t kMaxPooledBytes = 512;
constexpr std::size_t kClasses = kMaxPooledBytes / kGranule;
// A list keeps at most this many free nodes (a few MB for the largest
// class): enough for the biggest segment the merger builds, not a leak of
// every fusion the thread ever made.
constexpr std::size_t kMaxFreePerClass = 1 << 14;

struct FreeNode {
  FreeNode* next;
};

// Set once the thread's lists are destroyed: a node freed later (by a static
// or thread_local destructor that runs after them) goes to the allocator.
thread_local bool listsGone = false;

struct FreeLists {
  FreeNode* head[kClasses] = {};
  std::size_t count[kClasses] = {};

  ~FreeLists() {
    listsGone = true;
    for (std::size_t c = 0; c < kClasses; ++c) {
      while (head[c] != nullptr) {
        FreeNode* node = head[c];
        head[c] = node->next;
        ::operator delete(node);
      }
    }
  }
};

FreeLists& freeLists() {
  thread_local FreeLists lists;
  return lists;
}

// Under AddressSanitizer every node goes to the allocator, so a use after
// free is still caught.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kPoolEnabled = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kPoolEnabled = false;
#else
constexpr bool kPoolEnabled = true;
#endif
#else
constexpr bool kPoolEnabled = true;
#endif

bool pooled(std::size_t bytes) {
  return kPoolEnabled && bytes != 0 && bytes <= kMaxPooledBytes && !listsGone;
}

std::size_t sizeClass(std::size_t bytes) { return (bytes + kGranule - 1) / kGranule - 1; }

}  // namespace

void* allocateNode(std::size_t bytes) {
  if (!pooled(bytes)) return ::operator new(bytes);
  FreeLists& lists = freeLists();
  const std::size_t c = sizeClass(bytes);
  if (FreeNode* node = lists.head[c]) {
    lists.head[c] = node->next;
    --lists.count[c];
    return node;
  }
  return ::operator new((c + 1) * kGranule);
}

void releaseNode(void* node, std::size_t bytes) noexcept {
  if (node == nullptr) return;
  if (!pooled(bytes)) {
    ::operator delete(node);
    return;
  }
  FreeLists& lists = freeLists();
  const std::size_t c = sizeClass(bytes);
  if (lists.count[c] >= kMaxFreePerClass) {
    ::operator delete(node);
    return;
  }
  auto* free = static_cast<FreeNode*>(node);
  free->next = lists.head[c];
  lists.head[c] = free;
  ++lists.count[c];
}

std::size_t freeNodesOfSize(std::size_t bytes) {
  if (!pooled(bytes)) return 0;
  return freeLists().count[sizeClass(bytes)];
}

}  // namespace fuserlab::ir
