// The tiled attention kernel for sdpfa_fwd on tensor cores (FlashAttention-2's
// scheme): each block takes 64 query rows of one (batch, head), 16 per
// warp, and walks the keys in tiles of 64. k and v tiles arrive by cp.async
// into two buffers each (the next tile loads while this one is computed);
// per tile, S = q k^T by mma.sync m16n8k16 (bf16 or half in, float
// accumulators; fragments by ldmatrix), the causal and tail masks (only in
// tiles that cross them), an online softmax in base 2 (running row maximum
// and sum, the output rescaled when the maximum moves), and O += P v with P
// packed to 16 bits from the score accumulators in place and v's fragments
// by ldmatrix.trans. The output is O over the row sum; the log-sum-exp is
// max + log(sum).
// Where scheduler::tiledAttentionRefusal has no objection; attention_emitter
// takes the one-row kernel otherwise.
#pragma once

#include <cstdint>
#include <string>

#include "core/ir/data_type.h"

namespace fuserlab::codegen {

//! What the tiled kernel is generated for.
struct FlashAttentionShape {
  ir::DataType dtype = ir::DataType::BFloat16;  //!< q, k and v's
  int64_t depth = 0;                            //!< head dimension (q, k and v)
  bool causal = false;
  double scale = 0.0;
};

//! `value` as a float literal of the generated source (9 significant
//! digits, enough to give back the same float).
std::string floatLiteral(double value);

//! Query rows and keys a block takes at a time.
constexpr int64_t kFlashBlockRows = 64;
constexpr int64_t kFlashBlockKeys = 64;
constexpr int64_t kFlashThreads = 128;

//! Dynamic shared memory of one block: the q tile and two buffers each of
//! the k and v tiles, rows of depth + 8 elements.
int64_t flashAttentionSharedBytes(int64_t depth);

//! The kernel's body after its signature, `{` and all but the closing `}`:
//! it reads the tensor parameters named `q`, `k`, `v` and writes `out` and
//! `lse` (each if not empty) with the caller's store expressions of a float
//! `value`. Declares `h` and `b` (the block's head and batch).
struct FlashAttentionNames {
  std::string q, k, v, out, lse;
  std::string storeOut;  //!< an expression of `value` stored into out
  std::string storeLse;  //!< an expression of `value` stored into lse
};
std::string flashAttentionBody(const FlashAttentionShape& shape, const FlashAttentionNames& names);

}  // namespace fuserlab::codegen
