// fd.define_tensor's expanded broadcast axes, as nvFuser derives them: in the
// shape form an axis whose contiguity (given in allocation order, through
// stride_order) is None and whose shape is not 1 is a broadcast of extent 1
// expanded to that shape (getExpanded); in the sizes/strides form a stride-0
// axis of size other than 1 is one, and stride-0 axes keep their own
// position in the stride order (computeTensorDescriptor).
#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/frontend/script.h"
#include "core/ir/error.h"
#include "core/ir/fusion.h"

namespace fuserlab::frontend {
namespace {

using ir::IterDomain;
using ir::TensorView;
using Contiguity = std::vector<std::optional<bool>>;

class DefineTensorTest : public ::testing::Test {
 protected:
  void readBody(std::string_view body) {
    std::ostringstream out;
    out << "from nvfuser import FusionDefinition, DataType\n\n"
        << "def fusion_func(fd : FusionDefinition) -> None :\n";
    std::istringstream lines{std::string(body)};
    std::string line;
    while (std::getline(lines, line)) out << "    " << line << "\n";
    out << "\nwith FusionDefinition() as fd:\n    fusion_func(fd)\n";
    script_ = readScript(out.str(), "define_tensor.py");
  }

  TensorView* tensor(const std::string& name) {
    for (const auto& val : script_.fusion().vals()) {
      if (val->scriptName() == name) return val->as<TensorView>();
    }
    ADD_FAILURE() << "no value named " << name;
    return nullptr;
  }

  // Per logical axis: 'i' iteration, 'b' broadcast, 'e' expanded broadcast.
  static std::string kinds(const TensorView* tv) {
    std::string out;
    for (const IterDomain* id : tv->logical()) {
      out += id->hasExpandedExtent() ? 'e' : id->isBroadcast() ? 'b' : 'i';
    }
    return out;
  }

  // Per logical axis: the constant extent a consumer iterates over, -1 if
  // symbolic.
  static std::vector<int64_t> extents(const TensorView* tv) {
    std::vector<int64_t> out;
    for (const IterDomain* id : tv->logical()) {
      out.push_back(id->extentForIteration()->constInt().value_or(-1));
    }
    return out;
  }

  Script script_;
};

TEST_F(DefineTensorTest, NoneOnASymbolicAxisIsAnExpandedBroadcast) {
  readBody(
      "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[None, True], "
      "dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])\n"
      "fd.add_output(T0)");
  TensorView* t0 = tensor("T0");
  ASSERT_NE(t0, nullptr);
  EXPECT_EQ(kinds(t0), "ei");
  const IterDomain* axis = t0->logical()[0];
  EXPECT_EQ(axis->extent()->constInt(), 1) << "a broadcast's own extent is 1";
  ASSERT_TRUE(axis->hasExpandedExtent());
  EXPECT_FALSE(axis->expandedExtent()->isConst()) << "shape -1 is symbolic";
  EXPECT_EQ(t0->contiguity(), (Contiguity{std::nullopt, true}));
  EXPECT_FALSE(t0->domain().hasAllocation());
}

TEST_F(DefineTensorTest, NoneOnAConstantSizeExpandsToThatSize) {
  readBody(
      "T0 = fd.define_tensor(shape=[4, -1, 1], contiguity=[None, True, None])\n"
      "fd.add_output(T0)");
  TensorView* t0 = tensor("T0");
  EXPECT_EQ(kinds(t0), "eib") << "None on shape 1 stays a plain broadcast";
  EXPECT_EQ(extents(t0), (std::vector<int64_t>{4, -1, 1}));
  EXPECT_EQ(t0->contiguity(), (Contiguity{std::nullopt, true, std::nullopt}));
}

TEST_F(DefineTensorTest, ContiguityNoneIsFoundThroughTheStrideOrder) {
  // Axis i's contiguity is at allocation position rank - 1 - stride_order[i]:
  // axis 0 at 2 (True), axis 1 at 0 (True), axis 2 at 1 (None).
  readBody(
      "T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, None, "
      "True], stride_order=[0, 2, 1])\n"
      "fd.add_output(T0)");
  TensorView* t0 = tensor("T0");
  EXPECT_EQ(kinds(t0), "iie");
  EXPECT_EQ(t0->strideOrder(), (std::vector<int64_t>{0, 2, 1}));
  EXPECT_EQ(t0->contiguity(), (Contiguity{true, std::nullopt, true}));
}

TEST_F(DefineTensorTest, NoneAtTheSizeOneAxisPositionOfAColumnMajorTensor) {
  // Column-major [1, -1]: allocation order is (axis 1, axis 0), so
  // contiguity[0] is axis 1's: None makes axis 1 expanded, and axis 0 is
  // the size-1 broadcast whatever its flag says.
  readBody(
      "T0 = fd.define_tensor(shape=[1, -1], contiguity=[None, True], "
      "stride_order=[0, 1])\n"
      "fd.add_output(T0)");
  TensorView* t0 = tensor("T0");
  EXPECT_EQ(kinds(t0), "be");
  EXPECT_EQ(t0->contiguity(), (Contiguity{std::nullopt, std::nullopt}));
}

TEST_F(DefineTensorTest, NegativeStrideOrderEntriesCountFromTheEnd) {
  // nvFuser's normalizeStrideOrder: -1 is rank - 1.
  readBody(
      "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, None], "
      "stride_order=[0, -1])\n"
      "fd.add_output(T0)");
  TensorView* t0 = tensor("T0");
  EXPECT_EQ(t0->strideOrder(), (std::vector<int64_t>{0, 1}));
  // Allocation (axis 1, axis 0): axis 0's contiguity is at position 1.
  EXPECT_EQ(kinds(t0), "ei");
}

TEST_F(DefineTensorTest, BoolContiguityExpandsNothing) {
  readBody(
      "T0 = fd.define_tensor(shape=[-1, 1], contiguity=True)\n"
      "T1 = fd.define_tensor(shape=[-1, -1])\n"
      "fd.add_output(T0)\nfd.add_output(T1)");
  EXPECT_EQ(kinds(tensor("T0")), "ib");
  EXPECT_EQ(kinds(tensor("T1")), "ii");
}

TEST_F(DefineTensorTest, StrideZeroInTheSizesFormIsAnExpandedBroadcast) {
  readBody(
      "T0 = fd.define_tensor(sizes=[4, 8], strides=[0, 1], "
      "dtype=DataType.Float)\n"
      "T1 = fd.define_tensor(sizes=[4, 8], strides=[0, 1], static_sizes=True)\n"
      "T2 = fd.define_tensor(sizes=[1, 8], strides=[0, 1])\n"
      "fd.add_output(T0)\nfd.add_output(T1)\nfd.add_output(T2)");
  TensorView* t0 = tensor("T0");
  EXPECT_EQ(kinds(t0), "ei");
  EXPECT_EQ(extents(t0), (std::vector<int64_t>{-1, -1}));
  EXPECT_EQ(t0->contiguity(), (Contiguity{std::nullopt, true}));
  EXPECT_FALSE(t0->domain().hasAllocation()) << "stride_order [1, 0]";

  TensorView* t1 = tensor("T1");
  EXPECT_EQ(kinds(t1), "ei");
  EXPECT_EQ(extents(t1), (std::vector<int64_t>{4, 8}));

  EXPECT_EQ(kinds(tensor("T2")), "bi") << "stride 0 on size 1: a broadcast";
}

TEST_F(DefineTensorTest, StrideZeroAxesKeepTheirPositionInTheStrideOrder) {
  // nvFuser's computeTensorDescriptor sorts the other axes by descending
  // stride, (axis 2, axis 0), and puts the stride-0 axis 1 back at position
  // 1: allocation (axis 2, axis 1, axis 0), stride_order [0, 1, 2]. Axis 2
  // is contiguous over axis 0 (3 == 1 * 3), skipping the broadcast.
  readBody(
      "T0 = fd.define_tensor(sizes=[3, 4, 2], strides=[1, 0, 3])\n"
      "T1 = fd.define_tensor(sizes=[2, 4, 3], strides=[3, 0, 1])\n"
      "T2 = fd.define_tensor(sizes=[2, 4, 3], strides=[4, 0, 1])\n"
      "fd.add_output(T0)\nfd.add_output(T1)\nfd.add_output(T2)");
  TensorView* t0 = tensor("T0");
  EXPECT_EQ(kinds(t0), "iei");
  EXPECT_EQ(t0->strideOrder(), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(t0->contiguity(), (Contiguity{true, std::nullopt, true}));

  TensorView* t1 = tensor("T1");
  EXPECT_FALSE(t1->domain().hasAllocation());
  EXPECT_EQ(t1->contiguity(), (Contiguity{true, std::nullopt, true}));

  EXPECT_EQ(tensor("T2")->contiguity(), (Contiguity{false, std::nullopt, true}));
}

TEST_F(DefineTensorTest, EveryAxisExpanded) {
  readBody(
      "T0 = fd.define_tensor(sizes=[3, 5], strides=[0, 0])\n"
      "fd.add_output(T0)");
  TensorView* t0 = tensor("T0");
  EXPECT_EQ(kinds(t0), "ee");
  EXPECT_EQ(t0->contiguity(), (Contiguity{std::nullopt, std::nullopt}));
}

}  // namespace
}  // namespace fuserlab::frontend
