// PersistentSchedulerTest: which segments the inner persistent scheduler
// takes, why it and the others refuse the rest (with numbers), and that its
// heuristic proposes params its own checks accept. Seed 000 and seed 001
// are the acceptance cases. The outer persistent scheduler's:
// test_outer_persistent_scheduler.cpp.
#include <gtest/gtest.h>

#include "core/ops/alias.h"
#include "core/ops/arith.h"
#include "tests/scheduler/persistent/persistent_scheduler_fixture.h"
#include "tests/test_scripts.h"

namespace fuserlab::scheduler {
namespace {

using persistent_test::BoundSegment;
using persistent_test::h100;
using persistent_test::PersistentSchedulerTest;
using persistent_test::refusalsText;
using persistent_test::seed000Segment;

TEST_F(PersistentSchedulerTest, Seed000PrivatizedSegmentIsInnerPersistentOnBf16) {
  // S = 64K: a bf16 row (128 KiB) fits the budget, a float row (256 KiB)
  // does not, as the seed asks.
  const int64_t s = 64 * 1024;
  BoundSegment segment(seed000Segment("BFloat16"), {{128, s}}, h100());
  std::vector<std::string> refusals;
  EXPECT_EQ(choose(segment.fusion(), segment.info(), &refusals), "inner_persistent")
      << refusalsText(refusals);
  ASSERT_EQ(refusals.size(), 1u);
  EXPECT_EQ(refusals[0],
            "reduction: T2 is used both by the reduction T3 and after it by "
            "T5: a persistent buffer is needed (persistent schedulers)");

  const ReductionParams p = heuristic(inner_, segment);
  EXPECT_TRUE(p.persistentKernel);
  EXPECT_TRUE(p.fastestDimReduction);
  EXPECT_TRUE(p.projectPersistentBuffers);
  EXPECT_EQ(p.persistentStorage, PersistentStorage::Registers);
  EXPECT_EQ(p.vectorizationFactor, 8);
  // Each row over a cluster of 4 blocks (more than 24 chunks a thread
  // whole: 32), which together cover it.
  EXPECT_EQ(p.gridDimY, 4);
  EXPECT_TRUE(p.clusterReduction);
  EXPECT_GE(p.blockDimX * p.persistentBatchSize * p.vectorizationFactor * p.gridDimY, s);
  EXPECT_LE(p.blockDimX, 1024);
  EXPECT_EQ(p.gridDimX * p.blockDimY, 128);

  const std::string json = propertiesText(inner_, segment);
  EXPECT_NE(json.find("\"projected_persistent_buffer_bytes\":131072"), std::string::npos) << json;
  EXPECT_NE(json.find("\"project_persistent_buffers\":true"), std::string::npos);
  EXPECT_NE(json.find("\"persistent_storage\":\"registers\""), std::string::npos);
}

TEST_F(PersistentSchedulerTest, Seed000ForwardedSegmentRefusesWithBytes) {
  // The same rows after input forwarding: the segment starts at the float
  // upcast, so nothing narrower is left to keep.
  const int64_t s = 64 * 1024;
  BoundSegment segment(seed000Segment("Float"), {{128, s}}, h100());
  EXPECT_EQ(inner_.rejectCompileTime(segment.fusion()), std::nullopt);
  const auto reason = inner_.rejectRunTime(segment.fusion(), segment.info());
  ASSERT_TRUE(reason.has_value());
  EXPECT_EQ(*reason,
            "the persistent buffers need 262144 bytes per reduction row (T1: "
            "Float, 262144; projecting to the inputs would keep 262144, no "
            "fewer); the register budget on h100 is 131072 bytes per block "
            "(half of its 65536 registers) and the shared memory budget "
            "228352 bytes per block (232448 opt-in, less 4096 for the block "
            "reduction's workspace): the rows are too long to keep resident "
            "(a reduction segment and a pointwise segment read them twice "
            "instead)");
  std::vector<std::string> refusals;
  EXPECT_EQ(choose(segment.fusion(), segment.info(), &refusals), "none");
}

TEST_F(PersistentSchedulerTest, Seed000LongerBf16RowGoesToSharedMemory) {
  // 100000 bf16 = 200000 bytes: over the register budget, within shared
  // memory's.
  const int64_t s = 100000;
  BoundSegment segment(seed000Segment("BFloat16"), {{128, s}}, h100());
  ASSERT_EQ(choose(segment.fusion(), segment.info()), "inner_persistent");
  const ReductionParams p = heuristic(inner_, segment);
  EXPECT_EQ(p.persistentStorage, PersistentStorage::SharedMemory);
  EXPECT_TRUE(p.projectPersistentBuffers);
  EXPECT_EQ(p.blockDimY, 1);
  EXPECT_GE(p.blockDimX * p.persistentBatchSize * p.vectorizationFactor, s);
}

TEST_F(PersistentSchedulerTest, Seed000WholeFusionKeepsTheSegmentSetApart) {
  auto segment = BoundSegment::fromExample("resources/examples/seed000_forwarding_miss.py", h100());
  const auto reason = inner_.rejectCompileTime(segment->fusion());
  ASSERT_TRUE(reason.has_value());
  EXPECT_EQ(reason->rfind("segment_set T8 forces a segment boundary", 0), 0u) << *reason;
}

TEST_F(PersistentSchedulerTest, Seed001LayerNormVectorizesBy8) {
  auto segment =
      BoundSegment::fromExample("resources/examples/seed001_nanogpt_layer_norm.py", h100());
  std::vector<std::string> refusals;
  ASSERT_EQ(choose(segment->fusion(), segment->info(), &refusals), "inner_persistent")
      << refusalsText(refusals);
  const ReductionParams p = heuristic(inner_, *segment);
  EXPECT_EQ(p.vectorizationFactor, 8);
  EXPECT_TRUE(p.projectPersistentBuffers);
  EXPECT_EQ(p.persistentStorage, PersistentStorage::Registers);
  EXPECT_GE(p.blockDimX * p.persistentBatchSize * 8, 1600);
  EXPECT_EQ(p.gridDimX * p.blockDimY, 16 * 128);
  const std::string json = propertiesText(inner_, *segment);
  EXPECT_NE(json.find("\"max_allowed_vectorize_factor\":8"), std::string::npos);
  EXPECT_NE(json.find("\"projected_persistent_buffer_bytes\":3200"), std::string::npos);
}

TEST_F(PersistentSchedulerTest, Seed001BookendInputsExampleKeepsItsReshapes) {
  // Without bookending from the inputs, the [2048, 1600] -> [16, 128, 1600]
  // reshape stays in the kernel: it keeps the rows, so the kernel still
  // vectorizes by 8, but (as in nvFuser) nothing projects through it.
  auto segment = BoundSegment::fromExample("resources/examples/seed001_bookend_inputs.py", h100());
  std::vector<std::string> refusals;
  ASSERT_EQ(choose(segment->fusion(), segment->info(), &refusals), "inner_persistent")
      << refusalsText(refusals);
  const ReductionParams p = heuristic(inner_, *segment);
  EXPECT_EQ(p.vectorizationFactor, 8);
  EXPECT_FALSE(p.projectPersistentBuffers);
  const std::string json = propertiesText(inner_, *segment);
  EXPECT_NE(json.find("\"not_projectable_because\":\"T3 is computed by "
                      "reshape, which a projection does not recompute\""),
            std::string::npos)
      << json;
}

TEST_F(PersistentSchedulerTest, Seed001BookendedSegmentStillVectorizesBy8) {
  // With bookend=inputs_and_outputs the kernel segment reads the weight as
  // an expanded broadcast [1 ex 16, 1 ex 128, 1600] with strides (0, 0, 1):
  // its zero strides must not lower the factor (the regression seed 001
  // reports).
  using ir::DataType;
  using ir::IterType;
  auto fusion = std::make_unique<ir::Fusion>();
  ir::Fusion& f = *fusion;
  auto* x = f.newTensorView({f.newIterDomain(f.newScalar(DataType::Int), IterType::Iteration),
                             f.newIterDomain(f.newScalar(DataType::Int), IterType::Iteration),
                             f.newIterDomain(f.newScalar(DataType::Int), IterType::Iteration)},
                            DataType::BFloat16);
  auto* w = f.newTensorView({f.newIterDomain(f.constInt(1), IterType::Broadcast, f.constInt(16)),
                             f.newIterDomain(f.constInt(1), IterType::Broadcast, f.constInt(128)),
                             f.newIterDomain(f.newScalar(DataType::Int), IterType::Iteration)},
                            DataType::BFloat16);
  f.addInput(x);
  f.addInput(w);
  auto* xf = ops::cast(x, DataType::Float)->as<ir::TensorView>();
  auto* mean = ops::sum(xf, {2});
  auto* centered =
      ops::binaryOp(ir::BinaryOpType::Sub, xf, ops::broadcast(mean, {false, false, true}));
  auto* scaled = ops::binaryOp(ir::BinaryOpType::Mul, centered, ops::cast(w, DataType::Float));
  f.addOutput(ops::cast(scaled, DataType::BFloat16));
  runtime::Arguments args{
      BoundSegment::withoutData(DataType::BFloat16, {16, 128, 1600}, {204800, 1600, 1}, 0),
      BoundSegment::withoutData(DataType::BFloat16, {16, 128, 1600}, {0, 0, 1}, 0)};
  BoundSegment segment(std::move(fusion), args, h100());
  std::vector<std::string> refusals;
  ASSERT_EQ(choose(segment.fusion(), segment.info(), &refusals), "inner_persistent")
      << refusalsText(refusals);
  const ReductionParams p = heuristic(inner_, segment);
  EXPECT_EQ(p.vectorizationFactor, 8);
  EXPECT_TRUE(p.projectPersistentBuffers);
}

TEST_F(PersistentSchedulerTest, ReshapeThatRegroupsRowsIsRefused) {
  BoundSegment segment(
      "from nvfuser import FusionDefinition, DataType\n"
      "def f(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType.Float, is_cpu=False)\n"
      "    T1 = fd.ops.reshape(T0, new_shape=[128, 128])\n"
      "    T2 = fd.ops.sum(T1, dims=[1], keepdim=True, dtype=DataType.Null)\n"
      "    T3 = fd.ops.sub(T1, T2)\n"
      "    fd.add_output(T3)\n",
      {{64, 256}}, h100());
  EXPECT_EQ(inner_.rejectCompileTime(segment.fusion()), std::nullopt);
  EXPECT_EQ(inner_.rejectRunTime(segment.fusion(), segment.info()),
            "reshape T1 changes the innermost extent (T0's 256 to 128), so it "
            "regroups the rows a reduction kernel walks; it belongs in a "
            "segment of its own");
}

TEST_F(PersistentSchedulerTest, NormalizationExamplesAreInnerPersistent) {
  for (const char* file : {"resources/examples/layer_norm.py", "resources/examples/rms_norm.py",
                           "resources/examples/softmax.py"}) {
    SCOPED_TRACE(file);
    auto segment = BoundSegment::fromExample(file, h100());
    std::vector<std::string> refusals;
    EXPECT_EQ(choose(segment->fusion(), segment->info(), &refusals), "inner_persistent")
        << refusalsText(refusals);
    const ReductionParams p = heuristic(inner_, *segment);
    EXPECT_EQ(p.vectorizationFactor, 8);  // bf16 inputs, rows of 2^k
  }
}

TEST_F(PersistentSchedulerTest, PlainSumIsNotPersistent) {
  auto segment = BoundSegment::fromExample("resources/examples/sum_reduction.py", h100());
  const auto reason = inner_.rejectCompileTime(segment->fusion());
  ASSERT_TRUE(reason.has_value());
  EXPECT_EQ(reason->rfind("no tensor is read both before and after a "
                          "reduction",
                          0),
            0u)
      << *reason;
}

TEST_F(PersistentSchedulerTest, RejectParamsExplainsInvalidShapes) {
  BoundSegment segment(seed000Segment("BFloat16"), {{128, 4096}}, h100());
  const ReductionParams good = heuristic(inner_, segment);

  ReductionParams p = good;
  p.persistentBatchSize = 1;
  p.blockDimX = 128;
  EXPECT_EQ(inner_.rejectParams(segment.fusion(), segment.info(), p),
            "block_dim_x * persistent_batch_size * vectorization_factor = "
            "128 * 1 * 8 = 1024 does not cover a row of 4096 elements");

  p = good;
  p.vectorizationFactor = 16;
  const auto vect = inner_.rejectParams(segment.fusion(), segment.info(), p);
  ASSERT_TRUE(vect.has_value());
  EXPECT_EQ(vect->rfind("vectorization_factor 16 exceeds the largest this "
                        "segment allows, 8",
                        0),
            0u)
      << *vect;

  p = good;
  p.persistentKernel = false;
  EXPECT_TRUE(inner_.rejectParams(segment.fusion(), segment.info(), p));

  p = good;
  p.blockDimY = 2048;
  EXPECT_TRUE(inner_.rejectParams(segment.fusion(), segment.info(), p));

  // Unprojected float rows of 4096 in shared memory, 64 rows a block: over.
  p = good;
  p.projectPersistentBuffers = false;
  p.persistentStorage = PersistentStorage::SharedMemory;
  p.blockDimY = 64;
  p.blockDimX = 16;
  p.persistentBatchSize = 32;
  p.gridDimX = 2;
  EXPECT_EQ(inner_.rejectParams(segment.fusion(), segment.info(), p),
            "persistent_storage shared_memory holds 228352 bytes per block, "
            "but 64 row(s) of 16384 bytes need 1048576");

  HeuristicParams pointwise = PointwiseParams{};
  EXPECT_TRUE(inner_.rejectParams(segment.fusion(), segment.info(), pointwise));
}

TEST_F(PersistentSchedulerTest, ProjectionOnlyWhereABufferProjects) {
  BoundSegment segment(
      "from nvfuser import FusionDefinition, DataType\n"
      "def f(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType.Float, is_cpu=False)\n"
      "    T1 = fd.ops.sum(T0, dims=[1], keepdim=True, dtype=DataType.Null)\n"
      "    T2 = fd.ops.sub(T0, T1)\n"
      "    fd.add_output(T2)\n",
      {{64, 300}}, h100());
  ReductionParams p = heuristic(inner_, segment);
  EXPECT_FALSE(p.projectPersistentBuffers);
  p.projectPersistentBuffers = true;
  EXPECT_EQ(inner_.rejectParams(segment.fusion(), segment.info(), p),
            "project_persistent_buffers is set, but no buffer can be "
            "recomputed from the segment's inputs (T0 is an input of the "
            "segment)");
}

TEST_F(PersistentSchedulerTest, ShortRowsShareABlock) {
  BoundSegment segment(seed000Segment("BFloat16"), {{100000, 64}}, h100());
  const ReductionParams p = heuristic(inner_, segment);
  EXPECT_EQ(p.vectorizationFactor, 8);
  EXPECT_EQ(p.blockDimX, 8);
  EXPECT_EQ(p.persistentBatchSize, 1);
  EXPECT_EQ(p.blockDimY, 16);
  EXPECT_EQ(p.gridDimX, 6250);
}

// A bf16 softmax: a max, a sum of exps and the normalized exps.
std::string bf16Softmax() {
  return "from nvfuser import FusionDefinition, DataType\n"
         "def f(fd : FusionDefinition) -> None :\n"
         "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
         "dtype=DataType.BFloat16, is_cpu=False)\n"
         "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
         "    T2 = fd.ops.max(T1, dims=[1], keepdim=True)\n"
         "    T3 = fd.ops.sub(T1, T2)\n"
         "    T4 = fd.ops.exp(T3)\n"
         "    T5 = fd.ops.sum(T4, dims=[1], keepdim=True)\n"
         "    T6 = fd.ops.div(T4, T5)\n"
         "    T7 = fd.ops.cast(T6, dtype=DataType.BFloat16)\n"
         "    fd.add_output(T7)\n";
}

TEST_F(PersistentSchedulerTest, SoftmaxKeepsItsExpsRatherThanProjecting) {
  // Projecting to the bf16 input would recompute exp in the output's pass;
  // the float buffers fit the registers, so they stay.
  BoundSegment long_rows(bf16Softmax(), {{4096, 16384}}, h100());
  const ReductionParams p = heuristic(inner_, long_rows);
  EXPECT_FALSE(p.projectPersistentBuffers);
  EXPECT_EQ(p.persistentStorage, PersistentStorage::Registers);
  EXPECT_EQ(p.vectorizationFactor, 8);
  EXPECT_EQ(p.blockDimX, 256);  // not 512: at most 256 threads per row
  EXPECT_EQ(p.persistentBatchSize, 8);

  BoundSegment rows(bf16Softmax(), {{8192, 4096}}, h100());
  const ReductionParams q = heuristic(inner_, rows);
  EXPECT_FALSE(q.projectPersistentBuffers);
  EXPECT_EQ(q.blockDimX, 128);  // 32 elements per thread
  EXPECT_EQ(q.persistentBatchSize, 4);
}

// Rows of 2048 bf16 in chunks of 8, 256 chunks a row. At 1024 rows every
// chunk of the problem gets its own thread within one wave of an H100 (132
// SMs x 2048 threads = 270336 >= 262144): one chunk a thread, 256 threads a
// row (the rms_norm example, 4.42 -> 3.78 us in the tuner). At 2048 rows it
// would take two waves: 32 elements a thread again.
TEST_F(PersistentSchedulerTest, ProblemOfOneWaveTakesOneChunkAThread) {
  BoundSegment oneWave(bf16Softmax(), {{1024, 2048}}, h100());
  const ReductionParams p = heuristic(inner_, oneWave);
  EXPECT_EQ(p.vectorizationFactor, 8);
  EXPECT_EQ(p.blockDimX, 256);
  EXPECT_EQ(p.persistentBatchSize, 1);

  BoundSegment twoWaves(bf16Softmax(), {{2048, 2048}}, h100());
  const ReductionParams q = heuristic(inner_, twoWaves);
  EXPECT_EQ(q.blockDimX, 64);
  EXPECT_EQ(q.persistentBatchSize, 4);
}

// A row or so per SM (decode sizes): one chunk a thread in blocks past the
// preferred 128 to 256 threads. 16 rows of 4096 bf16, 512 chunks of 8: 512
// threads of 1 (2.14 us on an H200 in the tuner; the preferred range's 256
// of 2 took 2.94). 5120 wide: 640 threads. 512 rows is one wave too, but not
// a row per SM: it keeps the preferred range.
TEST_F(PersistentSchedulerTest, AFewRowsTakeOneChunkAThreadInLargeBlocks) {
  BoundSegment decode(bf16Softmax(), {{16, 4096}}, h100());
  const ReductionParams p = heuristic(inner_, decode);
  EXPECT_EQ(p.vectorizationFactor, 8);
  EXPECT_EQ(p.blockDimX, 512);
  EXPECT_EQ(p.persistentBatchSize, 1);

  BoundSegment wider(bf16Softmax(), {{7, 5120}}, h100());
  const ReductionParams q = heuristic(inner_, wider);
  EXPECT_EQ(q.blockDimX, 640);
  EXPECT_EQ(q.persistentBatchSize, 1);

  BoundSegment manyRows(bf16Softmax(), {{512, 4096}}, h100());
  const ReductionParams r = heuristic(inner_, manyRows);
  EXPECT_LE(r.blockDimX, 256);
}

TEST_F(PersistentSchedulerTest, NormalizationWithoutTranscendentalsStillProjects) {
  BoundSegment segment(
      "from nvfuser import FusionDefinition, DataType\n"
      "def f(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType.BFloat16, is_cpu=False)\n"
      "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
      "    T2 = fd.ops.sum(T1, dims=[1], keepdim=True)\n"
      "    T3 = fd.ops.sub(T1, T2)\n"
      "    T4 = fd.ops.cast(T3, dtype=DataType.BFloat16)\n"
      "    fd.add_output(T4)\n",
      {{8192, 4096}}, h100());
  EXPECT_TRUE(heuristic(inner_, segment).projectPersistentBuffers);
}

TEST_F(PersistentSchedulerTest, OddRowFillsItsBlockInsteadOfIdlingThreads) {
  // Float rows of 2052 in chunks of 4 (16 bytes), 513 chunks. 32 elements
  // per thread would be 65 threads, rounded to 96 (768 chunk slots, a third
  // idle); 96 threads of 6 leave 63 slots idle (so would 192 of 3: the
  // larger batch wins the tie, as a bf16 LayerNorm of 2052 measured, 24.9
  // us against 26.6 on an H100).
  std::string floatSoftmax = bf16Softmax();
  floatSoftmax.replace(floatSoftmax.find("BFloat16, is_cpu"), 8, "Float");
  BoundSegment segment(floatSoftmax, {{8192, 2052}}, h100());
  const ReductionParams p = heuristic(inner_, segment);
  EXPECT_EQ(p.vectorizationFactor, 4);
  EXPECT_EQ(p.blockDimX, 96);
  EXPECT_EQ(p.persistentBatchSize, 6);
}

TEST_F(PersistentSchedulerTest, FullerBlocksTakeTheFewestIdleSlots) {
  // bf16 rows in chunks of 4 where 32 elements per thread leave too many
  // slots idle: fewer chunks per thread, the fewest idle slots, the larger
  // batch on a tie (each shape measured the fastest or within 0.3 us of it
  // among 160-192 x 2-4, 64, 96 and 128 threads on an H100).
  struct Case {
    int64_t length, threads, batch;
  };
  for (const Case& c : {Case{1030, 96, 3}, Case{1500, 64, 6}, Case{2500, 128, 5}}) {
    SCOPED_TRACE(c.length);
    BoundSegment segment(seed000Segment("BFloat16"), {{8192, c.length}}, h100());
    const ReductionParams p = heuristic(inner_, segment);
    EXPECT_EQ(p.vectorizationFactor, 4);
    EXPECT_EQ(p.blockDimX, c.threads);
    EXPECT_EQ(p.persistentBatchSize, c.batch);
  }
}

TEST_F(PersistentSchedulerTest, RowsUnder1024ElementsStillGiveEachThreadSeveral) {
  // Rows of 1,023 bf16 (projected, shifted: chunks of 4, 255 whole ones):
  // each thread takes 16 elements, 64 threads of 4 chunks, not the 256
  // threads of one chunk that rows under 1,024 had taken (H200: 12.4 and
  // 19.0 us for a LayerNorm backward's dx). Rows of 768: 16 elements, 64
  // threads of 2 chunks of 8 (the tuner's best of 40 on an H200; the old
  // rule's 96 threads of one chunk ran 17.2 us against 16.3). Rows of 1,024
  // and more keep 32.
  struct Case {
    int64_t length, vector, threads, batch;
  };
  for (const Case& c : {Case{1023, 4, 64, 4}, Case{768, 8, 64, 2}, Case{4096, 8, 128, 4}}) {
    SCOPED_TRACE(c.length);
    BoundSegment segment(seed000Segment("BFloat16"), {{16384, c.length}}, h100());
    const ReductionParams p = heuristic(inner_, segment);
    EXPECT_EQ(p.vectorizationFactor, c.vector);
    EXPECT_EQ(p.blockDimX, c.threads);
    EXPECT_EQ(p.persistentBatchSize, c.batch);
  }
}

TEST_F(PersistentSchedulerTest, ShiftedRowsTake16ByteChunksAndCountWholeOnes) {
  // bf16 rows of 2050 (8 does not divide it: each row's chunks start at its
  // first element aligned to 8). A row has at most 2050 / 8 = 256 whole
  // chunks; its head and tail (up to 14 elements) take a thread each. So 64
  // threads of 4 chunks of 8 cover it with no idle slot, the 2048-element
  // row's shape, two rows a block.
  BoundSegment segment(bf16Softmax(), {{8192, 2050}}, h100());
  const ReductionParams p = heuristic(inner_, segment);
  EXPECT_FALSE(p.projectPersistentBuffers);
  EXPECT_EQ(p.vectorizationFactor, 8);
  EXPECT_EQ(p.blockDimX, 64);
  EXPECT_EQ(p.persistentBatchSize, 4);
  EXPECT_EQ(p.blockDimY, 2);
  EXPECT_EQ(inner_.rejectParams(segment.fusion(), segment.info(), p), std::nullopt);

  // One chunk fewer per thread no longer covers the whole chunks.
  ReductionParams short_ = p;
  short_.persistentBatchSize = 3;
  EXPECT_EQ(inner_.rejectParams(segment.fusion(), segment.info(), short_),
            "block_dim_x * persistent_batch_size * vectorization_factor = "
            "64 * 3 * 8 = 1536 does not cover the 2048 elements of whole "
            "aligned chunks in a row of 2050 elements");
  // The head and tail elements need a thread each.
  ReductionParams narrow = p;
  narrow.blockDimX = 8;
  narrow.persistentBatchSize = 32;
  const auto reason = inner_.rejectParams(segment.fusion(), segment.info(), narrow);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("each row's up to 14 elements outside its aligned "
                         "chunks take a thread each, but block_dim_x is 8"),
            std::string::npos)
      << *reason;
}

TEST_F(PersistentSchedulerTest, ProjectedShiftedRowsTake8ByteChunks) {
  // A projected kernel (no transcendental to recompute) over odd rows keeps
  // 8-byte chunks: 4099 / 4 = 1024 whole chunks on 128 threads of 8.
  BoundSegment segment(seed000Segment("BFloat16"), {{8192, 4099}}, h100());
  const ReductionParams p = heuristic(inner_, segment);
  EXPECT_TRUE(p.projectPersistentBuffers);
  EXPECT_EQ(p.vectorizationFactor, 4);
  EXPECT_EQ(p.blockDimX, 128);
  EXPECT_EQ(p.persistentBatchSize, 8);
  // 16-byte chunks stay valid for the tuner to try.
  ReductionParams wide = p;
  wide.vectorizationFactor = 8;
  wide.persistentBatchSize = 4;
  EXPECT_EQ(inner_.rejectParams(segment.fusion(), segment.info(), wide), std::nullopt);
}

TEST_F(PersistentSchedulerTest, PropertiesSayWhyRowsAreShiftedAndInWhichChunks) {
  // The report carries the heuristic's reason, for inspect and the workbench.
  auto choice = [&](const BoundSegment& b) {
    const report::Json json = inner_.properties(b.fusion(), b.info());
    const report::Json* why = json.get("shifted_rows_choice");
    return why == nullptr ? std::string("(none)") : why->asString();
  };
  EXPECT_EQ(choice(BoundSegment(bf16Softmax(), {{8192, 2050}}, h100())),
            "rows of 2050 elements, not a multiple of 8: each row's chunks start "
            "at its first aligned element, in chunks of 8 (the kernel keeps its "
            "buffers); 256 whole chunks a row at most, the head and tail (up to "
            "14 elements) one per thread");
  EXPECT_EQ(choice(BoundSegment(seed000Segment("BFloat16"), {{8192, 4099}}, h100())),
            "rows of 4099 elements, not a multiple of 8: each row's chunks start "
            "at its first aligned element, in chunks of 4 (the kernel projects "
            "its buffers to its inputs); 1024 whole chunks a row at most, the "
            "head and tail (up to 6 elements) one per thread");
  EXPECT_EQ(choice(BoundSegment(seed000Segment("BFloat16"), {{8192, 4100}}, h100())),
            "rows of 4100 elements, not a multiple of 8: chunks of 4 (the kernel "
            "projects its buffers to its inputs), which divide the rows, so none "
            "is shifted");
  EXPECT_EQ(choice(BoundSegment(bf16Softmax(), {{8192, 4096}}, h100())), "(none)");
}

// A normalization backward with its weight gradients (issue 45 item 1): dx
// from row sums and dw, db as column sums over every row. The reduction and
// outer persistent schedulers refuse the column sums, naming them; the inner
// persistent scheduler takes the segment as one combined kernel whose grid
// is resident at once (its blocks meet at a grid barrier before the column
// sums are added), and refuses a grid larger than that and a chunk width
// that does not divide the rows.
TEST_F(PersistentSchedulerTest, NormBackwardWithWeightGradientsIsOneCombinedKernel) {
  const DeviceSpec device = h100();
  for (const bool layerNorm : {true, false}) {
    SCOPED_TRACE(layerNorm ? "LayerNorm" : "RMSNorm");
    const std::string source =
        test_scripts::definition(test_scripts::normBackwardWithWeights(8192, 4096, layerNorm));
    std::vector<std::vector<int64_t>> shapes = {{8192, 4096}, {8192, 4096}, {8192, 1}};
    if (layerNorm) shapes.push_back({8192, 1});
    shapes.push_back({4096});
    const BoundSegment b(source, shapes, device);
    std::vector<std::string> refusals;
    ASSERT_EQ(choose(b.fusion(), b.info(), &refusals), "inner_persistent")
        << refusalsText(refusals);
    ASSERT_EQ(refusals.size(), 1u);
    EXPECT_NE(refusals[0].find("reduction: column sum T"), std::string::npos) << refusals[0];
    EXPECT_NE(refusals[0].find("the reduction scheduler follows one set of reduced axes"),
              std::string::npos)
        << refusals[0];
    const auto outer = outer_.rejectCompileTime(b.fusion());
    ASSERT_TRUE(outer.has_value());
    EXPECT_NE(outer->find("outer_persistent follows one set of reduced axes"), std::string::npos)
        << *outer;

    // Rows kept in registers beside the column sums would leave 2 or 3
    // blocks of 128 threads an SM: the rows go to shared memory (the float
    // buffers themselves, no recomputation) in 8-byte chunks, 4 blocks an SM.
    const ReductionParams p = heuristic(inner_, b);
    EXPECT_EQ(p.persistentStorage, PersistentStorage::SharedMemory);
    EXPECT_FALSE(p.projectPersistentBuffers);
    EXPECT_EQ(p.vectorizationFactor, 4);
    EXPECT_EQ(p.blockDimX * p.persistentBatchSize * p.vectorizationFactor, 4096);
    const int64_t threads = p.blockDimX * p.blockDimY;
    EXPECT_LE(p.gridDimX, int64_t{device.smCount} * (device.maxThreadsPerSm / threads));
    EXPECT_EQ(p.gridDimX, int64_t{device.smCount} * 4);
    EXPECT_LT(p.gridDimX * p.blockDimY, 8192) << "the grid strides over the rows";
    const std::string json = propertiesText(inner_, b);
    const size_t sums = json.find("\"column_sums\":[\"T");
    ASSERT_NE(sums, std::string::npos) << json;
    // dw and db for LayerNorm, dw for RMSNorm.
    EXPECT_EQ(json.substr(sums, json.find(']', sums) - sums).find(',') != std::string::npos,
              layerNorm)
        << json;
    EXPECT_NE(json.find("blocks (4 an SM, resident at once) meets at a grid barrier"),
              std::string::npos)
        << json;

    ReductionParams tooMany = p;
    tooMany.gridDimX = 8192 / p.blockDimY;
    const auto grid = inner_.rejectParams(b.fusion(), b.info(), tooMany);
    ASSERT_TRUE(grid.has_value());
    EXPECT_NE(grid->find("waits for every block at a grid barrier"), std::string::npos) << *grid;
  }
}

// A column sum read back into the rows (x minus its column sums, then a
// row sum of that): the combined kernel has its column sums only after
// every row, so no scheduler takes the segment whole; the segmenter splits
// it (the column sum in a reduction kernel of its own).
TEST_F(PersistentSchedulerTest, AColumnSumReadBackIntoTheRowsIsNoCombinedKernel) {
  const BoundSegment b(
      test_scripts::definition(
          "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
          "dtype=DataType.Float, is_cpu=False)\n"
          "T1 = fd.ops.sum(T0, dims=[0], keepdim=False)\n"
          "T2 = fd.ops.broadcast_in_dim(T1, shape=[512, 1024], broadcast_dims=[1])\n"
          "T3 = fd.ops.sub(T0, T2)\n"
          "T4 = fd.ops.sum(T3, dims=[1], keepdim=False)\n"
          "T5 = fd.ops.broadcast_in_dim(T4, shape=[512, 1024], broadcast_dims=[0])\n"
          "fd.add_output(fd.ops.div(T0, T5))\n"
          "fd.add_output(T1)\n"),
      {{512, 1024}}, h100());
  std::vector<std::string> refusals;
  EXPECT_EQ(choose(b.fusion(), b.info(), &refusals), "none");
  ASSERT_EQ(refusals.size(), 3u);
  EXPECT_NE(refusals[1].find("combines T3, computed from column sums, with T0, but a combined "
                             "kernel has its column sums only after every row"),
            std::string::npos)
      << refusals[1];
}

// Few rows (37 of 4096 bf16): a combined kernel's blocks would each take
// one or two rows and write as many bytes of partial column sums as they
// read; even a block per SM moves more than a third of what the rows read,
// so inner_persistent refuses the combined segment, saying so, and the
// column sums go in a kernel of their own. At 2048 rows the grid is capped
// below the resident blocks instead.
TEST_F(PersistentSchedulerTest, FewRowsTakeTheirColumnSumsInAKernelOfTheirOwn) {
  const std::string source =
      test_scripts::definition(test_scripts::normBackwardWithWeights(37, 4096, false));
  const BoundSegment few(source, {{37, 4096}, {37, 4096}, {37, 1}, {4096}}, h100());
  const auto reason = inner_.rejectRunTime(few.fusion(), few.info());
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("the rows are too few for a combined kernel"), std::string::npos)
      << *reason;
  const BoundSegment more(
      test_scripts::definition(test_scripts::normBackwardWithWeights(2048, 4096, false)),
      {{2048, 4096}, {2048, 4096}, {2048, 1}, {4096}}, h100());
  EXPECT_EQ(inner_.rejectRunTime(more.fusion(), more.info()), std::nullopt);
  const ReductionParams p = heuristic(inner_, more);
  // 2048 x 4096 x (2 + 2) bytes read (and 2048 x 4 + 4096 x 2 more), over
  // 3 x (4096 x 4 x 2) partial bytes a block: 341 blocks, under the 528 resident.
  EXPECT_EQ(p.gridDimX, 341);
}

// Rows of 1023 bf16: no 16-byte chunk divides them, and a combined kernel
// cannot shift its rows (a thread keeps the same columns in every row), so
// its chunks are single elements; chunks of 8 are refused, saying why.
TEST_F(PersistentSchedulerTest, CombinedKernelKeepsItsColumnsInEveryRow) {
  const BoundSegment b(
      test_scripts::definition(test_scripts::normBackwardWithWeights(8191, 1023, false)),
      {{8191, 1023}, {8191, 1023}, {8191, 1}, {1023}}, h100());
  ASSERT_EQ(choose(b.fusion(), b.info()), "inner_persistent");
  ReductionParams p = heuristic(inner_, b);
  EXPECT_EQ(p.vectorizationFactor, 1);
  p.vectorizationFactor = 8;
  p.persistentBatchSize = 1;
  p.blockDimX = 128;
  const auto reason = inner_.rejectParams(b.fusion(), b.info(), p);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("vectorization_factor 8 does not divide the row length 1023"),
            std::string::npos)
      << *reason;
}

}  // namespace
}  // namespace fuserlab::scheduler
