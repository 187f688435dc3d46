#include "core/codegen/attention_flash.h"

#include <sstream>

namespace fuserlab::codegen {
namespace {

std::string floatLiteral(double value) {
  std::ostringstream out;
  out.precision(9);
  out << std::scientific << value << "f";
  return out.str();
}

}  // namespace

std::optional<std::string> flashAttentionRefusal(ir::DataType q, ir::DataType k,
                                                 ir::DataType v, int64_t depth,
                                                 int64_t valueDepth) {
  if (q != k || q != v) return "q, k and v have different types";
  if (q != ir::DataType::BFloat16 && q != ir::DataType::Half) {
    return "the tensor cores take bf16 or half, not " + std::string(ir::toString(q));
  }
  if (depth != valueDepth) {
    return "q's head dimension " + std::to_string(depth) + " differs from v's " +
           std::to_string(valueDepth);
  }
  if (depth % 16 != 0 || depth < 16 || depth > 128) {
    return "the head dimension " + std::to_string(depth) +
           " is not a multiple of 16 from 16 to 128";
  }
  return std::nullopt;
}

int64_t flashAttentionSharedBytes(int64_t depth) {
  return (2 * kFlashBlockRows * (depth + 8) + depth * (kFlashBlockKeys + 8)) * 2;
}

std::string flashAttentionBody(const FlashAttentionShape& shape,
                               const FlashAttentionNames& n) {
  const bool bf16 = shape.dtype == ir::DataType::BFloat16;
  const std::string mmaType = bf16 ? "bf16" : "f16";
  // log2(e): the scores are scaled into base 2 once, for exp2f.
  const double scaleLog2 = shape.scale * 1.4426950408889634;
  std::ostringstream s;
  s << " {\n"
    << "  // q, k, v as 16-bit words; tiles in shared memory, rows padded by 8\n"
    << "  // elements so a warp's fragment loads fall in 32 different banks.\n"
    << "  constexpr int E = " << shape.depth << ";\n"
    << "  constexpr int BM = " << kFlashBlockRows << ", BN = " << kFlashBlockKeys
    << ", LD = E + 8, LDV = BN + 8;\n"
    << "  constexpr bool kCausal = " << (shape.causal ? "true" : "false") << ";\n"
    << "  constexpr float kScaleLog2 = " << floatLiteral(scaleLog2) << ";\n"
    << "  const float kMinusInf = -__int_as_float(0x7f800000);\n"
    << "  extern __shared__ __align__(16) unsigned char fl_smem[];\n"
    << "  uint16_t* qs = reinterpret_cast<uint16_t*>(fl_smem);  // [BM][LD]\n"
    << "  uint16_t* ks = qs + BM * LD;                          // [BN][LD]\n"
    << "  uint16_t* vt = ks + BN * LD;                          // [E][LDV], v transposed\n"
    << "  const int64_t m0 = (int64_t)blockIdx.x * BM, h = blockIdx.y, b = blockIdx.z;\n"
    << "  const int64_t Sq = " << n.q << ".size[2], Sk = " << n.k << ".size[2];\n"
    << "  const uint16_t* qh = reinterpret_cast<const uint16_t*>(" << n.q << ".data + b * "
    << n.q << ".stride[0] + h * " << n.q << ".stride[1]);\n"
    << "  const uint16_t* kh = reinterpret_cast<const uint16_t*>(" << n.k << ".data + b * "
    << n.k << ".stride[0] + h * " << n.k << ".stride[1]);\n"
    << "  const uint16_t* vh = reinterpret_cast<const uint16_t*>(" << n.v << ".data + b * "
    << n.v << ".stride[0] + h * " << n.v << ".stride[1]);\n"
    << "  // 16-byte loads where every row starts 16-byte aligned and is dense.\n"
    << "  const bool vec = " << n.q << ".stride[3] == 1 && " << n.k << ".stride[3] == 1 && "
    << n.v << ".stride[3] == 1 &&\n"
    << "      " << n.q << ".stride[2] % 8 == 0 && " << n.k << ".stride[2] % 8 == 0 && " << n.v
    << ".stride[2] % 8 == 0 &&\n"
    << "      (reinterpret_cast<uint64_t>(qh) | reinterpret_cast<uint64_t>(kh) |\n"
    << "       reinterpret_cast<uint64_t>(vh)) % 16 == 0;\n"
    << "  struct alignas(16) Chunk { uint16_t e[8]; };\n"
    << "  // Rows r0 .. r0 + 63 of a [rows, E] matrix (zeros past its end), 8\n"
    << "  // elements at a time; transposed into dst[e][row] if `transpose`.\n"
    << "  auto load = [&](uint16_t* dst, const uint16_t* src, int64_t rs, int64_t cs,\n"
    << "                  int64_t r0, int64_t rows, bool transpose) {\n"
    << "    constexpr int kChunks = E / 8;\n"
    << "    for (int c = threadIdx.x; c < 64 * kChunks; c += " << kFlashThreads << ") {\n"
    << "      const int r = c / kChunks, e0 = (c % kChunks) * 8;\n"
    << "      Chunk x;\n"
    << "      const int64_t row = r0 + r;\n"
    << "      if (row >= rows) {\n"
    << "#pragma unroll\n"
    << "        for (int i = 0; i < 8; ++i) x.e[i] = 0;\n"
    << "      } else if (vec) {\n"
    << "        x = *reinterpret_cast<const Chunk*>(src + row * rs + e0);\n"
    << "      } else {\n"
    << "#pragma unroll\n"
    << "        for (int i = 0; i < 8; ++i) x.e[i] = src[row * rs + (int64_t)(e0 + i) * cs];\n"
    << "      }\n"
    << "      if (transpose) {\n"
    << "#pragma unroll\n"
    << "        for (int i = 0; i < 8; ++i) dst[(e0 + i) * LDV + r] = x.e[i];\n"
    << "      } else {\n"
    << "        *reinterpret_cast<Chunk*>(dst + r * LD + e0) = x;\n"
    << "      }\n"
    << "    }\n"
    << "  };\n"
    << "  auto word = [](const uint16_t* p) { return *reinterpret_cast<const unsigned*>(p); };\n"
    << "  auto mma = [](float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {\n"
    << "    asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32." << mmaType << "." << mmaType
    << ".f32 {%0, %1, %2, %3}, \"\n"
    << "                 \"{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\"\n"
    << "                 : \"+f\"(d[0]), \"+f\"(d[1]), \"+f\"(d[2]), \"+f\"(d[3])\n"
    << "                 : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"r\"(b0), \"r\"(b1));\n"
    << "  };\n"
    << "  // Two floats as one word of two 16-bit values, `lo` in the low half.\n"
    << "  auto pack = [](float lo, float hi) {\n"
    << "    unsigned w;\n"
    << "    asm(\"cvt.rn." << mmaType << "x2.f32 %0, %1, %2;\" : \"=r\"(w) : \"f\"(hi), \"f\"(lo));\n"
    << "    return w;\n"
    << "  };\n"
    << "  load(qs, qh, " << n.q << ".stride[2], " << n.q << ".stride[3], m0, Sq, false);\n"
    << "  __syncthreads();\n"
    << "  // Each warp's 16 query rows as mma A fragments: lane (g, t) holds\n"
    << "  // rows g and g + 8, columns 2t, 2t + 1 and 2t + 8, 2t + 9 of each 16.\n"
    << "  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;\n"
    << "  unsigned qa[E / 16][4];\n"
    << "#pragma unroll\n"
    << "  for (int kk = 0; kk < E / 16; ++kk) {\n"
    << "    const uint16_t* r = qs + (warp * 16 + g) * LD + kk * 16 + 2 * t;\n"
    << "    qa[kk][0] = word(r);\n"
    << "    qa[kk][1] = word(r + 8 * LD);\n"
    << "    qa[kk][2] = word(r + 8);\n"
    << "    qa[kk][3] = word(r + 8 * LD + 8);\n"
    << "  }\n"
    << "  const int64_t row0 = m0 + warp * 16 + g, row1 = row0 + 8;\n"
    << "  float o[E / 8][4];\n"
    << "#pragma unroll\n"
    << "  for (int et = 0; et < E / 8; ++et) o[et][0] = o[et][1] = o[et][2] = o[et][3] = 0.0f;\n"
    << "  float mrow[2] = {kMinusInf, kMinusInf}, lrow[2] = {0.0f, 0.0f};\n"
    << "  // Causal (top-left aligned, torch's is_causal): row i sees keys j <= i.\n"
    << "  const int64_t kend = kCausal ? (Sk < m0 + BM ? Sk : m0 + BM) : Sk;\n"
    << "  for (int64_t n0 = 0; n0 < kend; n0 += BN) {\n"
    << "    __syncthreads();  // the last tile's readers are done\n"
    << "    load(ks, kh, " << n.k << ".stride[2], " << n.k << ".stride[3], n0, Sk, false);\n"
    << "    load(vt, vh, " << n.v << ".stride[2], " << n.v << ".stride[3], n0, Sk, true);\n"
    << "    __syncthreads();\n"
    << "    float sc[BN / 8][4];\n"
    << "#pragma unroll\n"
    << "    for (int nt = 0; nt < BN / 8; ++nt) sc[nt][0] = sc[nt][1] = sc[nt][2] = sc[nt][3] = 0.0f;\n"
    << "#pragma unroll\n"
    << "    for (int kk = 0; kk < E / 16; ++kk) {\n"
    << "#pragma unroll\n"
    << "      for (int nt = 0; nt < BN / 8; ++nt) {\n"
    << "        const uint16_t* r = ks + (nt * 8 + g) * LD + kk * 16 + 2 * t;\n"
    << "        mma(sc[nt], qa[kk], word(r), word(r + 8));\n"
    << "      }\n"
    << "    }\n"
    << "    // Scores in base 2, masked; the rows' new maxima (over the 4 lanes\n"
    << "    // of a row).\n"
    << "    float mx[2] = {mrow[0], mrow[1]};\n"
    << "#pragma unroll\n"
    << "    for (int nt = 0; nt < BN / 8; ++nt) {\n"
    << "#pragma unroll\n"
    << "      for (int c = 0; c < 4; ++c) {\n"
    << "        const int64_t j = n0 + nt * 8 + 2 * t + (c & 1);\n"
    << "        const int64_t i = c < 2 ? row0 : row1;\n"
    << "        float v = sc[nt][c] * kScaleLog2;\n"
    << "        if (j >= Sk || (kCausal && j > i)) v = kMinusInf;\n"
    << "        sc[nt][c] = v;\n"
    << "        mx[c / 2] = fmaxf(mx[c / 2], v);\n"
    << "      }\n"
    << "    }\n"
    << "    float corr[2];\n"
    << "#pragma unroll\n"
    << "    for (int r = 0; r < 2; ++r) {\n"
    << "      mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));\n"
    << "      mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));\n"
    << "      corr[r] = mx[r] == kMinusInf ? 1.0f : exp2f(mrow[r] - mx[r]);\n"
    << "      mrow[r] = mx[r];\n"
    << "      lrow[r] *= corr[r];\n"
    << "    }\n"
    << "#pragma unroll\n"
    << "    for (int nt = 0; nt < BN / 8; ++nt) {\n"
    << "#pragma unroll\n"
    << "      for (int c = 0; c < 4; ++c) {\n"
    << "        const float m = mx[c / 2];\n"
    << "        const float p = m == kMinusInf ? 0.0f : exp2f(sc[nt][c] - m);\n"
    << "        sc[nt][c] = p;\n"
    << "        lrow[c / 2] += p;  // this lane's part of the row sum\n"
    << "      }\n"
    << "    }\n"
    << "#pragma unroll\n"
    << "    for (int et = 0; et < E / 8; ++et) {\n"
    << "      o[et][0] *= corr[0];\n"
    << "      o[et][1] *= corr[0];\n"
    << "      o[et][2] *= corr[1];\n"
    << "      o[et][3] *= corr[1];\n"
    << "    }\n"
    << "    // O += P v: the score accumulators of key tiles 2kk and 2kk + 1 are\n"
    << "    // the A fragment of keys 16kk .. 16kk + 15.\n"
    << "#pragma unroll\n"
    << "    for (int kk = 0; kk < BN / 16; ++kk) {\n"
    << "      const unsigned pa[4] = {pack(sc[2 * kk][0], sc[2 * kk][1]), pack(sc[2 * kk][2], sc[2 * kk][3]),\n"
    << "                              pack(sc[2 * kk + 1][0], sc[2 * kk + 1][1]),\n"
    << "                              pack(sc[2 * kk + 1][2], sc[2 * kk + 1][3])};\n"
    << "#pragma unroll\n"
    << "      for (int et = 0; et < E / 8; ++et) {\n"
    << "        const uint16_t* r = vt + (et * 8 + g) * LDV + kk * 16 + 2 * t;\n"
    << "        mma(o[et], pa, word(r), word(r + 8));\n"
    << "      }\n"
    << "    }\n"
    << "  }\n"
    << "  // The rows' sums over their 4 lanes; O over the sum, and the\n"
    << "  // log-sum-exp in natural units (max * ln 2 + ln(sum)).\n"
    << "#pragma unroll\n"
    << "  for (int r = 0; r < 2; ++r) {\n"
    << "    lrow[r] += __shfl_xor_sync(0xffffffffu, lrow[r], 1);\n"
    << "    lrow[r] += __shfl_xor_sync(0xffffffffu, lrow[r], 2);\n"
    << "  }\n"
    << "#pragma unroll\n"
    << "  for (int r = 0; r < 2; ++r) {\n"
    << "    const int64_t i = r == 0 ? row0 : row1;\n"
    << "    if (i >= Sq) continue;\n"
    << "    const float inv = lrow[r] > 0.0f ? 1.0f / lrow[r] : 0.0f;\n"
    << "    (void)inv;\n";
  if (!n.out.empty()) {
    s << "#pragma unroll\n"
      << "    for (int et = 0; et < E / 8; ++et) {\n"
      << "#pragma unroll\n"
      << "      for (int x = 0; x < 2; ++x) {\n"
      << "        const int64_t e = et * 8 + 2 * t + x;\n"
      << "        const float value = o[et][2 * r + x] * inv;\n"
      << "        " << n.out << ".data[b * " << n.out << ".stride[0] + h * " << n.out
      << ".stride[1] + i * " << n.out << ".stride[2] + e * " << n.out << ".stride[3]] = "
      << n.storeOut << ";\n"
      << "      }\n"
      << "    }\n";
  }
  if (!n.lse.empty()) {
    s << "    if (t == 0) {\n"
      << "      const float value = lrow[r] > 0.0f ? mrow[r] * 0.6931471806f + logf(lrow[r]) : kMinusInf;\n"
      << "      " << n.lse << ".data[b * " << n.lse << ".stride[0] + h * " << n.lse
      << ".stride[1] + i * " << n.lse << ".stride[2]] = " << n.storeLse << ";\n"
      << "    }\n";
  }
  s << "  }\n";
  return s.str();
}

}  // namespace fuserlab::codegen
