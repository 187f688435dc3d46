// ir::fnv1a64, the core's one byte-wise hash: the published FNV-1a 64 test
// vectors. (Its two users, the kernel cache's checksum and the scheduler
// params' hash, had their own copies before; their tests pin their values.)
#include <gtest/gtest.h>

#include "core/ir/fnv1a.h"

namespace fuserlab::ir {
namespace {

TEST(Fnv1aTest, PublishedVectors) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ull);
  // Appending continues the hash.
  EXPECT_EQ(fnv1a64("bar", fnv1a64("foo")), fnv1a64("foobar"));
  static_assert(fnv1a64("a") == 0xaf63dc4c8601ec8cull);
}

}  // namespace
}  // namespace fuserlab::ir
