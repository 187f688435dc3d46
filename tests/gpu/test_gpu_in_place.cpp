// In-place optimizer steps on the GPU: an Adam update whose parameter and
// both moments are written back into their inputs (add_output(alias_input=)),
// at the size of issue 42 item 6 (16,777,219 elements: 2^24 + 3, an odd
// extent, so no vector width divides it) and at 2^24 (vectorized), with the
// heuristic's params and with every vector width the pointwise scheduler
// allows. Each run starts from fresh copies of the same inputs, outputs and
// updated inputs are compared with the CPU reference.
#include "tests/gpu/gpu_fixture.h"

#include "core/scheduler/pointwise/pointwise_params.h"

namespace fuserlab::gpu_test {
namespace {

class GpuInPlaceTest : public GpuTest {
 protected:
  void defineAdam() {
    define(R"(
T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
S4 = fd.define_scalar(None, dtype=DataType.Double)
S5 = fd.define_scalar(None, dtype=DataType.Double)
S6 = fd.define_scalar(None, dtype=DataType.Double)
S7 = fd.define_scalar(None, dtype=DataType.Double)
T8 = fd.ops.lerp(T2, T1, S5)
T9 = fd.ops.mul(T1, T1)
T10 = fd.ops.lerp(T3, T9, S6)
T11 = fd.ops.sqrt(T10)
T12 = fd.ops.add(T11, S7)
T13 = fd.ops.div(T8, T12)
T14 = fd.ops.mul(T13, S4)
T15 = fd.ops.sub(T0, T14)
fd.add_output(T15, alias_input=T0)
fd.add_output(T8, alias_input=T2)
fd.add_output(T10, alias_input=T3)
)");
  }

  runtime::Arguments adamInputs(int64_t n) {
    // The second moment is non-negative (as Adam keeps it): uniform [0, 1).
    Tensor moment2 = Tensor::empty(DataType::Float, {n});
    runtime::fillUniform(moment2, 4242);
    return {random(DataType::Float, {n}), random(DataType::Float, {n}),
            random(DataType::Float, {n}), moment2,
            ir::ScalarValue(0.001), ir::ScalarValue(0.1), ir::ScalarValue(0.001),
            ir::ScalarValue(1e-8)};
  }
};

TEST_F(GpuInPlaceTest, AdamStepWritesBackEveryElementOnce) {
  for (int64_t n : {int64_t{16777219}, int64_t{16777216}, int64_t{1027}}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    defineAdam();
    const runtime::Arguments inputs = adamInputs(n);
    runAndCheck(inputs);
    FL_SKIP_IF_UNAVAILABLE();
    for (int vector : {1, 2, 4}) {
      if (n % vector != 0) continue;
      SCOPED_TRACE("vectorization_factor " + std::to_string(vector));
      scheduler::PointwiseParams params;
      params.vectorizationFactor = vector;
      params.blockDimX = 128;
      FixedParams<scheduler::PointwiseParams> fixed(scheduler::SchedulerType::Pointwise,
                                                    params);
      useProvider(&fixed);
      defineAdam();
      runAndCheck(inputs);
      useProvider(nullptr);
    }
  }
}

}  // namespace
}  // namespace fuserlab::gpu_test
