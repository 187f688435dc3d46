// A segment fusion read from an nvFuser script with its input shapes bound
// (tensors without data), on a built-in device: what a scheduler sees of a
// segment at run time.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/compiler/input_description.h"
#include "core/frontend/script.h"
#include "core/scheduler/device_spec.h"
#include "core/scheduler/runtime_info.h"
#include "core/tensor/tensor.h"
#include "tests/source_dir.h"

namespace fuserlab::scheduler::persistent_test {

//! The H100 entry, with the figures the tests' byte counts assume.
inline DeviceSpec h100() {
  std::optional<DeviceSpec> device = findBuiltinDevice("h100");
  EXPECT_TRUE(device.has_value());
  if (!device) return DeviceSpec{};
  EXPECT_EQ(device->smCount, 132);
  EXPECT_EQ(device->registersPerBlock, 65536);
  EXPECT_EQ(device->sharedMemoryPerBlockOptinBytes, 232448);
  EXPECT_EQ(device->maxThreadsPerBlock, 1024);
  return *device;
}

class BoundSegment {
 public:
  //! Reads `source` and binds contiguous inputs of `shapes` (one per tensor
  //! input, in order), each at element offset `offsets[i]` (0 if absent).
  BoundSegment(const std::string& source, std::vector<std::vector<int64_t>> shapes,
               DeviceSpec device, std::vector<int64_t> offsets = {})
      : script_(frontend::readScript(source, "segment.py")), device_(std::move(device)) {
    runtime::Arguments args;
    size_t next = 0;
    for (const ir::Val* input : fusion().inputs()) {
      EXPECT_LT(next, shapes.size()) << "no shape for " << input->name();
      const std::vector<int64_t>& sizes = shapes.at(next);
      const int64_t offset = next < offsets.size() ? offsets[next] : 0;
      args.push_back(
          withoutData(input->dtype(), sizes, runtime::Tensor::contiguousStrides(sizes), offset));
      ++next;
    }
    bind(args);
  }

  //! Reads a script file of the repository and binds its `inputs = [...]`
  //! block.
  static std::unique_ptr<BoundSegment> fromExample(const std::string& relative, DeviceSpec device) {
    return std::unique_ptr<BoundSegment>(new BoundSegment(
        frontend::readScriptFile(fuserlab::test::sourceDir() + "/" + relative), std::move(device)));
  }

  //! A device tensor without data, `storageOffset` elements past a 256-byte
  //! aligned base. (Tensor::borrow refuses runtime::metadataOnly's null base
  //! for a non-empty tensor for now, and a null base would lose an offset's
  //! misalignment: the tensor borrows a made-up device address that nothing
  //! reads.)
  static runtime::Tensor withoutData(ir::DataType dtype, std::vector<int64_t> sizes,
                                     std::vector<int64_t> strides, int64_t storageOffset) {
    // NOLINTNEXTLINE(performance-no-int-to-ptr): a made-up address, never read
    void* base = reinterpret_cast<void*>(uintptr_t{1} << 40);
    return runtime::Tensor::borrow(base, dtype, std::move(sizes), std::move(strides), storageOffset,
                                   runtime::DeviceKind::Cuda);
  }

  //! A fusion built in the test (e.g. with an expanded broadcast input,
  //! which a script cannot declare) bound to `args`.
  BoundSegment(std::unique_ptr<ir::Fusion> fusion, const runtime::Arguments& args,
               DeviceSpec device)
      : built_(std::move(fusion)), device_(std::move(device)) {
    bind(args);
  }

  const ir::Fusion& fusion() const { return built_ ? *built_ : script_->fusion(); }
  const SegmentRuntimeInfo& info() const { return info_; }

 private:
  BoundSegment(frontend::Script script, DeviceSpec device)
      : script_(std::move(script)), device_(std::move(device)) {
    EXPECT_TRUE(script_->inputs.has_value());
    runtime::Arguments args;
    for (const frontend::InputSpec& spec :
         script_->inputs.value_or(std::vector<frontend::InputSpec>{})) {
      if (spec.isScalar) {
        args.emplace_back(spec.scalar);
        continue;
      }
      const std::vector<int64_t> sizes = spec.stridedSizes.value_or(spec.sizes);
      args.push_back(
          withoutData(spec.dtype, sizes,
                      spec.stridedStrides.value_or(runtime::Tensor::contiguousStrides(sizes)),
                      spec.stridedOffset));
    }
    bind(args);
  }

  void bind(const runtime::Arguments& args) {
    info_.inputs = runtime::describeInputs(fusion(), args, evaluator_);
    info_.device = &device_;
    info_.evaluator = &evaluator_;
  }

  std::optional<frontend::Script> script_;
  std::unique_ptr<ir::Fusion> built_;
  DeviceSpec device_;
  ir::ExpressionEvaluator evaluator_;
  SegmentRuntimeInfo info_;
};

//! Seed 000's kernel segment as the segmenter hands it to the schedulers:
//! with upcast=privatize the cast stays in the segment (`input` BFloat16);
//! with upcast=forward the segment starts at the cast's float result
//! (`input` Float, the cast gone). IR names: with the cast T0 -> T1 (cast)
//! -> T2 (set) -> T3 (sum) -> T4 -> T5 (add) -> T6; without it T0 -> T1
//! (set) -> T2 (sum) -> T3 -> T4 (add) -> T5.
inline std::string seed000Segment(const std::string& inputDtype) {
  const bool castVisible = inputDtype == "BFloat16";
  std::string s =
      "from nvfuser import FusionDefinition, DataType\n"
      "def nvfuser_fusion_id0(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType." +
      inputDtype + ", is_cpu=False, stride_order=[1, 0])\n";
  if (castVisible) s += "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n";
  s += std::string("    T2 = fd.ops.set(") + (castVisible ? "T1" : "T0") + ")\n";
  s += "    T3 = fd.ops.sum(T2, dims=[1], keepdim=False, dtype=DataType.Null)\n"
       "    T4 = fd.ops.broadcast(T3, is_broadcast_dim=[False, True])\n"
       "    T5 = fd.ops.add(T2, T4)\n"
       "    T6 = fd.ops.cast(T5, dtype=DataType.BFloat16)\n"
       "    fd.add_output(T6)\n";
  return s;
}

}  // namespace fuserlab::scheduler::persistent_test
