#include "core/codegen/reshape_index.h"

#include <cctype>
#include <cstdint>

namespace fuserlab::codegen {
namespace {

// Row-major linearization of `index` over `extents` (C text). In int64_t
// as the kernels always wrote it; in int32_t every term is cast, so nothing
// promotes back to 64 bits.
std::string linearize(const std::vector<std::string>& extents,
                      const std::vector<std::string>& index, size_t begin, size_t end,
                      bool narrow) {
  if (begin == end) return narrow ? "(int32_t)0" : "(int64_t)0";
  const std::string cast = narrow ? "(int32_t)" : "";
  std::string linear = std::string(narrow ? "(int32_t)(" : "(int64_t)(") + index.at(begin) + ")";
  for (size_t a = begin + 1; a < end; ++a) {
    linear = "(" + linear + " * " + cast + extents[a] + " + " + cast + "(" + index.at(a) + "))";
  }
  return linear;
}

// `position` decomposed over `extents[begin, end)`, written into `result`.
void decompose(const std::string& position, const std::vector<std::string>& extents, size_t begin,
               size_t end, bool narrow, std::vector<std::string>& result) {
  const std::string cast = narrow ? "(int32_t)" : "";
  std::string divisor;
  for (size_t k = end; k-- > begin;) {
    const std::string size = cast + extents[k];
    const std::string quotient =
        divisor.empty() ? position : "(" + position + " / (" + divisor + "))";
    result[k] = k == begin ? quotient : "(" + quotient + " % " + size + ")";
    divisor = divisor.empty() ? size : divisor + " * " + size;
  }
}

// Every extent's integer, or nullopt where one is not a literal.
std::optional<std::vector<int64_t>> literalExtents(const std::vector<std::string>& extents) {
  std::vector<int64_t> values;
  for (const std::string& e : extents) {
    const std::optional<int64_t> v = integerLiteral(e);
    if (!v) return std::nullopt;
    values.push_back(*v);
  }
  return values;
}

// Block `b`'s producer indices from the consumer's `index`, into `result`.
void indexBlock(const ReshapeBlock& b, const std::vector<std::string>& outExtents,
                const std::vector<std::string>& inExtents, const std::vector<std::string>& index,
                std::vector<std::string>& result) {
  if (b.inBegin == b.inEnd) return;  // no producer axis: nothing to index
  if (b.outEnd - b.outBegin == 1 && b.inEnd - b.inBegin == 1) {
    result[b.inBegin] = index.at(b.outBegin);  // the same axis on both sides
    return;
  }
  const bool narrow = b.elements <= (int64_t{1} << 30);
  decompose(linearize(outExtents, index, b.outBegin, b.outEnd, narrow), inExtents, b.inBegin,
            b.inEnd, narrow, result);
}

}  // namespace

std::optional<int64_t> integerLiteral(const std::string& text) {
  std::string s;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "/*") == 0) {  // a comment naming the scalar
      const size_t close = text.find("*/", i + 2);
      if (close == std::string::npos) return std::nullopt;
      i = close + 1;
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(text[i]))) s += text[i];
  }
  while (s.size() >= 2 && s.front() == '(' && s.back() == ')') s = s.substr(1, s.size() - 2);
  const std::string cast = "(int64_t)";
  if (s.compare(0, cast.size(), cast) == 0) s = s.substr(cast.size());
  if (s.size() > 2 && s.compare(s.size() - 2, 2, "ll") == 0) s.resize(s.size() - 2);
  if (s.empty() || s.size() > 18) return std::nullopt;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  return std::stoll(s);
}

std::optional<std::vector<ReshapeBlock>> reshapeBlocks(const std::vector<int64_t>& outExtents,
                                                       const std::vector<int64_t>& inExtents) {
  for (int64_t e : outExtents) {
    if (e <= 0) return std::nullopt;
  }
  for (int64_t e : inExtents) {
    if (e <= 0) return std::nullopt;
  }
  std::vector<ReshapeBlock> blocks;
  size_t o = 0, i = 0;
  while (o < outExtents.size() || i < inExtents.size()) {
    ReshapeBlock block;
    block.outBegin = o;
    block.inBegin = i;
    int64_t outProduct = 1, inProduct = 1;
    // Take at least one axis from a side that has any; then grow the side
    // with the smaller product until the two meet.
    if (o < outExtents.size()) outProduct = outExtents[o++];
    if (i < inExtents.size()) inProduct = inExtents[i++];
    while (outProduct != inProduct) {
      if (outProduct < inProduct) {
        if (o == outExtents.size()) return std::nullopt;
        if (outProduct > INT64_MAX / outExtents[o]) return std::nullopt;
        outProduct *= outExtents[o++];
      } else {
        if (i == inExtents.size()) return std::nullopt;
        if (inProduct > INT64_MAX / inExtents[i]) return std::nullopt;
        inProduct *= inExtents[i++];
      }
    }
    // Extent-1 axes that follow belong to this block (they add no digits).
    while (o < outExtents.size() && outExtents[o] == 1 &&
           !(i < inExtents.size() && inExtents[i] == 1)) {
      ++o;
    }
    while (i < inExtents.size() && inExtents[i] == 1 &&
           !(o < outExtents.size() && outExtents[o] == 1)) {
      ++i;
    }
    block.outEnd = o;
    block.inEnd = i;
    block.elements = outProduct;
    blocks.push_back(block);
  }
  return blocks;
}

std::vector<std::string> reshapeProducerIndex(const std::vector<std::string>& outExtents,
                                              const std::vector<std::string>& inExtents,
                                              const std::vector<std::string>& outIndex) {
  std::vector<std::string> result(inExtents.size(), "0");
  const auto outValues = literalExtents(outExtents);
  const auto inValues = literalExtents(inExtents);
  std::optional<std::vector<ReshapeBlock>> blocks;
  if (outValues && inValues) blocks = reshapeBlocks(*outValues, *inValues);
  if (!blocks) {
    // The consumer's whole linear position, then the producer's axes.
    decompose(linearize(outExtents, outIndex, 0, outExtents.size(), false), inExtents, 0,
              inExtents.size(), false, result);
    return result;
  }
  for (const ReshapeBlock& b : *blocks) indexBlock(b, outExtents, inExtents, outIndex, result);
  return result;
}

std::optional<LaneReshapeIndex> reshapeProducerIndexInLanes(
    const std::vector<std::string>& outExtents, const std::vector<std::string>& inExtents,
    const std::vector<std::string>& outIndex, const ReshapeLanes& lanes) {
  if (lanes.width <= 1) return std::nullopt;
  const auto outValues = literalExtents(outExtents);
  const auto inValues = literalExtents(inExtents);
  if (!outValues || !inValues) return std::nullopt;
  const std::optional<std::vector<ReshapeBlock>> blocks = reshapeBlocks(*outValues, *inValues);
  if (!blocks) return std::nullopt;
  // The lane must be exactly one consumer axis's index, the innermost of its
  // block, and appear nowhere else.
  std::optional<size_t> laneOut;
  for (size_t a = 0; a < outIndex.size(); ++a) {
    if (outIndex[a] == lanes.lane) {
      if (laneOut) return std::nullopt;
      laneOut = a;
    } else if (outIndex[a].find(lanes.lane) != std::string::npos) {
      return std::nullopt;
    }
  }
  if (!laneOut) return std::nullopt;
  const ReshapeBlock* laneBlock = nullptr;
  for (const ReshapeBlock& b : *blocks) {
    if (*laneOut >= b.outBegin && *laneOut < b.outEnd) laneBlock = &b;
  }
  if (laneBlock == nullptr || *laneOut != laneBlock->outEnd - 1 ||
      laneBlock->inBegin == laneBlock->inEnd || (*outValues)[*laneOut] % lanes.width != 0 ||
      (*inValues)[laneBlock->inEnd - 1] % lanes.width != 0) {
    return std::nullopt;
  }
  // The other blocks as without lanes.
  LaneReshapeIndex out;
  out.index.assign(inExtents.size(), "0");
  for (const ReshapeBlock& b : *blocks) {
    if (&b != laneBlock) indexBlock(b, outExtents, inExtents, outIndex, out.index);
  }
  // The lane's block again, at the vector's base: its linear position there
  // is a multiple of the width, and so is its remainder by the innermost
  // producer extent of the block (the width divides both).
  std::vector<std::string> atBase = outIndex;
  atBase[*laneOut] = lanes.base;
  const ReshapeBlock& b = *laneBlock;
  const bool narrow = b.elements <= (int64_t{1} << 30);
  std::vector<std::string> baseIndex(inExtents.size(), "0");
  decompose(linearize(outExtents, atBase, b.outBegin, b.outEnd, narrow), inExtents, b.inBegin,
            b.inEnd, narrow, baseIndex);
  for (size_t k = b.inBegin; k < b.inEnd; ++k) out.index[k] = baseIndex[k];
  out.laneAxis = b.inEnd - 1;
  out.innerTerm = "(index_t)(" + baseIndex[out.laneAxis] + ")";
  out.index[out.laneAxis].clear();
  return out;
}

}  // namespace fuserlab::codegen
