// Rounding to half/bf16 happens only where the value may not be exactly
// representable in the target dtype: a value loaded from a bf16 tensor, a
// bf16 value widened to float (cast, broadcast, set, cat, pad), and its
// negation or absolute value are bf16 values already. A cast between the
// two 16-bit dtypes, and any arithmetic result, still rounds.
#include <string>

#include "core/codegen/codegen.h"
#include "core/cuda/nvrtc_compiler.h"
#include "tests/codegen/codegen_fixture.h"

namespace fuserlab::codegen {
namespace {

TEST(RoundingElisionTest, BroadcastBf16BiasIsNotRoundedAgain) {
  // bias + x in float, then GELU-ish arithmetic, back to bf16: only the
  // final cast rounds, in the output's store (fl::to_element), once per path.
  const CompiledScript compiled =
      compileScript(script("    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
                           "dtype=DataType.BFloat16, is_cpu=False)\n"
                           "    T1 = fd.define_tensor(shape=[-1], contiguity=[True], "
                           "dtype=DataType.BFloat16, is_cpu=False)\n"
                           "    T2 = fd.ops.cast(T0, dtype=DataType.Float)\n"
                           "    T3 = fd.ops.broadcast_in_dim(T1, shape=[1024, 4096], "
                           "broadcast_dims=[1])\n"
                           "    T4 = fd.ops.cast(T3, dtype=DataType.Float)\n"
                           "    T5 = fd.ops.add(T2, T4)\n"
                           "    T6 = fd.ops.mul(T5, T5)\n"
                           "    T7 = fd.ops.cast(T6, dtype=DataType.BFloat16)\n"
                           "    fd.add_output(T7)\n"),
                    "1024x4096:bf16,4096:bf16");
  const GeneratedKernel& k = onlyKernel(compiled);
  EXPECT_FALSE(contains(k.source, "fl::round_to_bf16(fl::load_value(")) << k.source;
  EXPECT_EQ(count(k.source, "fl::round_to_bf16("), 0) << k.source;
  EXPECT_EQ(count(k.source, "= fl::to_element<fl::bfloat16>(T"), 2) << k.source;
  EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty());
}

TEST(RoundingElisionTest, CastChainRoundsOnlyWhereTheValueChanges) {
  // float -> bf16 (rounds) -> float -> bf16 (exact; the consecutive-cast
  // pass folds it) -> float -> half (a bf16 value may not fit half: rounds)
  // -> float * 0.5 -> bf16 (arithmetic: rounds).
  const CompiledScript compiled =
      compileScript(script("    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
                           "dtype=DataType.Float, is_cpu=False)\n"
                           "    T1 = fd.ops.cast(T0, dtype=DataType.BFloat16)\n"
                           "    T2 = fd.ops.cast(T1, dtype=DataType.Float)\n"
                           "    T3 = fd.ops.cast(T2, dtype=DataType.BFloat16)\n"
                           "    T4 = fd.ops.cast(T3, dtype=DataType.Float)\n"
                           "    T5 = fd.ops.cast(T4, dtype=DataType.Half)\n"
                           "    T6 = fd.ops.cast(T5, dtype=DataType.Float)\n"
                           "    S7 = fd.define_scalar(0.5, dtype=DataType.Double)\n"
                           "    T8 = fd.ops.mul(T6, S7)\n"
                           "    T9 = fd.ops.cast(T8, dtype=DataType.BFloat16)\n"
                           "    fd.add_output(T9)\n"),
                    "1024x4096:f32");
  const GeneratedKernel& k = onlyKernel(compiled);
  // Per path (vector and scalar): T1 rounds to bf16 and T5 to half; T9, the
  // output, rounds in its store.
  EXPECT_EQ(count(k.source, "fl::round_to_bf16("), 2) << k.source;
  EXPECT_EQ(count(k.source, "= fl::to_element<fl::bfloat16>(T"), 2) << k.source;
  EXPECT_EQ(count(k.source, "fl::round_to_half("), 2) << k.source;
  EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty());
}

TEST(RoundingElisionTest, WidenedBf16StaysExactThroughFloatOutputs) {
  // T1 (a widened bf16) and |T1| are float outputs, so no cast pass folds
  // the casts back to bf16 away: the emitter knows both are exact in bf16.
  const CompiledScript compiled =
      compileScript(script("    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
                           "dtype=DataType.BFloat16, is_cpu=False)\n"
                           "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
                           "    T2 = fd.ops.abs(T1)\n"
                           "    T3 = fd.ops.cast(T1, dtype=DataType.BFloat16)\n"
                           "    T4 = fd.ops.cast(T2, dtype=DataType.BFloat16)\n"
                           "    T5 = fd.ops.cast(T2, dtype=DataType.Half)\n"
                           "    fd.add_output(T2)\n"
                           "    fd.add_output(T3)\n"
                           "    fd.add_output(T4)\n"
                           "    fd.add_output(T5)\n"),
                    "1024x4096:bf16");
  const GeneratedKernel& k = onlyKernel(compiled);
  EXPECT_FALSE(contains(k.source, "fl::round_to_bf16(")) << k.source;
  // bf16 to half may round (half has fewer exponent bits): once per path, in
  // the store of the half output T5.
  EXPECT_EQ(count(k.source, "fl::round_to_half("), 0) << k.source;
  EXPECT_EQ(count(k.source, "= fl::to_element<fl::half>(T"), 2) << k.source;
  EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty());
}

TEST(RoundingElisionTest, NegatedBf16SliceInCatIsNotRounded) {
  // RoPE's rotate-half: cat(-x[..., 64:], x[..., :64]) of a bf16 tensor,
  // times a bf16 table. The negation and the cat are exact; the product
  // rounds.
  const CompiledScript compiled = compileScript(
      script("    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
             "dtype=DataType.BFloat16, is_cpu=False)\n"
             "    T1 = fd.ops.slice(T0, start_indices=[0, 64], end_indices=[256, 128], "
             "strides=[1, 1])\n"
             "    T2 = fd.ops.slice(T0, start_indices=[0, 0], end_indices=[256, 64], "
             "strides=[1, 1])\n"
             "    T3 = fd.ops.neg(T1)\n"
             "    T4 = fd.ops.cat([T3, T2], dim=1)\n"
             "    T5 = fd.ops.mul(T4, T0)\n"
             "    fd.add_output(T5)\n"),
      "256x128:bf16");
  const GeneratedKernel& k = onlyKernel(compiled);
  EXPECT_FALSE(contains(k.source, "fl::round_to_bf16(fl::load_value(")) << k.source;
  EXPECT_FALSE(contains(k.source, "fl::round_to_bf16(fl::neg(")) << k.source;
  EXPECT_FALSE(contains(k.source, "fl::round_to_bf16(T")) << k.source;
  EXPECT_TRUE(contains(k.source, "fl::round_to_bf16((")) << k.source;
  EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty());
}

}  // namespace
}  // namespace fuserlab::codegen
