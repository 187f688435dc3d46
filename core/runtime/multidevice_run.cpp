#include "core/runtime/multidevice_run.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>
#include <unordered_map>

#include "core/compiler/shard_inputs.h"
#include "core/ir/error.h"
#include "core/multidevice/communication.h"
#include "core/multidevice/local_fusion.h"
#include "core/multidevice/sharding.h"
#include "core/reference/reference_run.h"
#include "core/runtime/gpu_executor.h"
#include "core/runtime/thread_communicator.h"
#include "core/tensor/binding.h"

namespace fuserlab::runtime {
namespace {

using multidevice::CommunicationType;

size_t bytesOf(const Tensor& t) {
  return static_cast<size_t>(t.numel() * ir::sizeInBytes(t.dtype()));
}

// The permutation that moves `axis` first, and its inverse.
std::vector<int64_t> axisFirst(int64_t rank, int64_t axis) {
  std::vector<int64_t> order = {axis};
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis) order.push_back(d);
  }
  return order;
}

std::vector<int64_t> inverse(const std::vector<int64_t>& order) {
  std::vector<int64_t> out(order.size());
  for (size_t i = 0; i < order.size(); ++i)
    out[static_cast<size_t>(order[i])] = static_cast<int64_t>(i);
  return out;
}

// `t` with `axis` first, as a dense tensor: what the collectives move.
Tensor denseAxisFirst(const Tensor& t, int64_t axis) {
  return t.permute(axisFirst(t.dim(), axis)).contiguous();
}

// The dense tensor of `sizesAxisFirst` read back into logical order.
Tensor fromAxisFirst(const Tensor& axisFirstTensor, int64_t axis) {
  return axisFirstTensor.permute(inverse(axisFirst(axisFirstTensor.dim(), axis))).contiguous();
}

// Block `index` of `count` along `axis` (a copy).
Tensor block(const Tensor& t, int64_t axis, int64_t index, int64_t count, const std::string& what) {
  std::vector<int64_t> sizes = t.sizes();
  const size_t a = static_cast<size_t>(axis);
  sizes[a] = multidevice::shardExtent(sizes[a], count, what);
  return t.asStrided(sizes, t.strides(), t.storageOffset() + index * sizes[a] * t.strides()[a])
      .contiguous();
}

const ir::Expr* reshardingExpr(const segmenter::SegmentedGroup& group) {
  for (const ir::Expr* expr : group.exprs) {
    if (multidevice::isReshardingSet(expr)) return expr;
  }
  FL_ASSERT(false, "communication segment ", group.id, " holds no resharding set");
  return nullptr;
}

// The check of the scope the header states.
void checkMeshes(const ir::Fusion& fusion, int64_t ranks) {
  for (const auto& val : fusion.vals()) {
    const auto* tv = val->as<ir::TensorView>();
    if (tv == nullptr || !tv->hasDeviceMesh()) continue;
    const ir::DeviceMesh& mesh = tv->deviceMesh();
    bool all = mesh.size() == ranks;
    for (int64_t i = 0; all && i < ranks; ++i) all = mesh.devices()[static_cast<size_t>(i)] == i;
    const bool one = mesh.size() == 1 && mesh.devices()[0] >= 0 && mesh.devices()[0] < ranks;
    FL_CHECK(all || one, tv->name(), " lives on ", mesh.toString(), ", which a run on ", ranks,
             " ranks cannot place: every mesh must be the ranks 0..", ranks - 1,
             " (run it with --ranks ", mesh.size(), " if that mesh is 0..", mesh.size() - 1,
             ") or one of them");
  }
}

}  // namespace

std::vector<Tensor> ReferenceSegmentBackend::run(int segment, const ir::Fusion& local,
                                                 const Arguments& inputs) {
  return runReference(local, inputs);
}

GpuSegmentBackend::GpuSegmentBackend(int device, compiler::CompileOptions options)
    : device_(device), options_(std::move(options)) {}

GpuSegmentBackend::~GpuSegmentBackend() = default;

std::vector<Tensor> GpuSegmentBackend::run(int segment, const ir::Fusion& local,
                                           const Arguments& inputs) {
  std::unique_ptr<GpuExecutor>& executor = executors_[segment];
  if (!executor) executor = std::make_unique<GpuExecutor>(local, device_, options_);
  return runOnGpu(*executor, inputs).outputs;
}

MultiDeviceProgram::MultiDeviceProgram(const ir::Fusion& fusion, const Arguments& globalInputs,
                                       int64_t ranks, const compiler::CompileOptions& options,
                                       const scheduler::DeviceSpec& device)
    : ranks_(ranks) {
  FL_CHECK(ranks >= 1, "a multi-device run needs at least one rank, found ", ranks);
  compiled_ = compileFusion(fusion, options, device, globalInputs);
  const segmenter::SegmentedFusion& segmented = *compiled_.segmented;
  checkMeshes(segmented.complete(), ranks);
  for (const auto& group : segmented.groups()) {
    if (group.choice.type == scheduler::SchedulerType::Communication) {
      local_.push_back(nullptr);
      continue;
    }
    FL_ASSERT(group.segment != nullptr, "segment ", group.id, " has no segment fusion");
    local_.push_back(multidevice::localFusion(*group.segment));
  }
}

MultiDeviceProgram::~MultiDeviceProgram() = default;

std::vector<Tensor> MultiDeviceProgram::runRank(const Arguments& globalInputs,
                                                multidevice::Communicator& comm,
                                                SegmentBackend& backend,
                                                std::vector<CommunicationRecord>* records) const {
  FL_CHECK(comm.size() == ranks_, "the communicator has ", comm.size(),
           " ranks; the program was compiled for ", ranks_);
  const segmenter::SegmentedFusion& segmented = *compiled_.segmented;
  const ir::Fusion& complete = segmented.complete();
  const int64_t rank = comm.rank();

  // This rank's shards, bound through the allocation domains (seed 002):
  // the logical local views of the inputs, global extents in `evaluator`.
  ir::ExpressionEvaluator evaluator;
  const Arguments bound =
      bindInputs(complete, shardInputs(complete, globalInputs, rank), evaluator);
  std::unordered_map<const ir::Val*, Tensor> values;
  for (size_t i = 0; i < complete.inputs().size(); ++i) {
    if (const auto* t = std::get_if<Tensor>(&bound[i])) {
      values[complete.inputs()[i]] = t->contiguous();
    }
  }

  const auto& groups = segmented.groups();
  std::vector<bool> done(groups.size(), false);
  auto ready = [&](const segmenter::SegmentedGroup& group) {
    for (const ir::Val* val : group.inputs) {
      if (val->isA<ir::TensorView>() && values.count(val) == 0) return false;
    }
    return true;
  };
  for (size_t finished = 0; finished < groups.size();) {
    bool progress = false;
    for (size_t g = 0; g < groups.size(); ++g) {
      const segmenter::SegmentedGroup& group = groups[g];
      if (done[g] || !ready(group)) continue;
      done[g] = true;
      ++finished;
      progress = true;
      if (local_[g] == nullptr) {
        const ir::Expr* expr = reshardingExpr(group);
        const auto* in = expr->input(0)->as<ir::TensorView>();
        const auto* out = expr->output(0)->as<ir::TensorView>();
        const Tensor& x = values.at(in);
        const CommunicationType type = multidevice::classifyResharding(in, out);
        const int64_t devices = out->deviceMesh().size();
        const std::string what =
            "communication segment " + std::to_string(group.id) + " (" + expr->toString() + ")";
        Tensor result;
        switch (type) {
          case CommunicationType::None: result = x.clone(); break;
          case CommunicationType::LocalSlice:
            result = block(x, multidevice::shardedAxis(out), out->deviceMesh().indexOf(rank),
                           devices, what);
            break;
          case CommunicationType::Allgather: {
            const int64_t axis = multidevice::shardedAxis(in);
            const Tensor send = denseAxisFirst(x, axis);
            std::vector<int64_t> sizes = send.sizes();
            sizes[0] *= devices;
            Tensor recv = Tensor::empty(x.dtype(), sizes);
            comm.allgather(send.data(), recv.data(), bytesOf(send));
            result = fromAxisFirst(recv, axis);
            break;
          }
          case CommunicationType::Allreduce: {
            const Tensor send = x.contiguous();
            result = Tensor::empty(x.dtype(), x.sizes());
            comm.allreduce(send.data(), result.data(), static_cast<size_t>(send.numel()),
                           x.dtype());
            break;
          }
          case CommunicationType::ReduceScatter: {
            const int64_t axis = multidevice::shardedAxis(out);
            const Tensor send = denseAxisFirst(x, axis);
            std::vector<int64_t> sizes = send.sizes();
            sizes[0] = multidevice::shardExtent(sizes[0], devices, what);
            Tensor recv = Tensor::empty(x.dtype(), sizes);
            comm.reduceScatter(send.data(), recv.data(), static_cast<size_t>(recv.numel()),
                               x.dtype());
            result = fromAxisFirst(recv, axis);
            break;
          }
          case CommunicationType::Broadcast:
          case CommunicationType::SendRecv: {
            // Only the root holds the value: the others receive into a
            // zeroed buffer, whatever copy they computed.
            result = x.contiguous().clone();
            if (rank != in->deviceMesh().devices()[0]) result.zero();
            comm.broadcast(result.data(), bytesOf(result), in->deviceMesh().devices()[0]);
            break;
          }
        }
        if (records != nullptr) {
          records->push_back({group.id, std::string(multidevice::toString(type)), out->name(),
                              static_cast<int64_t>(bytesOf(x))});
        }
        values[out] = std::move(result);
        continue;
      }
      Arguments args;
      for (const ir::Val* val : group.inputs) {
        if (val->isA<ir::TensorView>()) {
          args.emplace_back(values.at(val));
          continue;
        }
        const auto* scalar = val->as<ir::Scalar>();
        FL_ASSERT(scalar != nullptr, "segment input ", val->name(),
                  " is neither a tensor nor a scalar");
        auto value = evaluator.evaluate(scalar);
        FL_CHECK(value.has_value(), "segment ", group.id, ": scalar input ", val->name(),
                 " has no value");
        args.emplace_back(*value);
      }
      std::vector<Tensor> outs = backend.run(static_cast<int>(g), *local_[g], args);
      FL_ASSERT(outs.size() == group.outputs.size(), "segment ", group.id, " gave ", outs.size(),
                " outputs for ", group.outputs.size());
      for (size_t i = 0; i < outs.size(); ++i) {
        values[group.outputs[i]] = outs[i].contiguous();
      }
    }
    FL_ASSERT(progress, "segments with unmet inputs: the segment graph has a cycle");
  }

  std::vector<Tensor> outputs;
  for (const ir::FusionOutput& output : complete.outputs()) {
    FL_CHECK(output.aliasOf == nullptr, "output ", output.val->name(),
             " aliases an input; multi-device runs do not write inputs");
    auto it = values.find(output.val);
    FL_CHECK(it != values.end(), "output ", output.val->name(),
             " is not a tensor any segment computed");
    outputs.push_back(it->second);
  }
  return outputs;
}

std::vector<Tensor> MultiDeviceProgram::gather(
    const std::vector<std::vector<Tensor>>& perRank) const {
  FL_CHECK(static_cast<int64_t>(perRank.size()) == ranks_, "gathering ", perRank.size(),
           " ranks' outputs of a ", ranks_, "-rank program");
  const ir::Fusion& complete = compiled_.segmented->complete();
  std::vector<Tensor> out;
  for (size_t o = 0; o < complete.outputs().size(); ++o) {
    const auto* tv = complete.outputs()[o].val->as<ir::TensorView>();
    const int64_t axis = tv != nullptr ? multidevice::shardedAxis(tv) : -1;
    if (axis < 0) {
      // Replicated: every rank must hold the same bytes (a collective that
      // left a rank behind shows here).
      const Tensor first = perRank[0].at(o).contiguous();
      for (size_t r = 1; r < perRank.size(); ++r) {
        const Tensor other = perRank[r].at(o).contiguous();
        FL_CHECK(other.sizes() == first.sizes() &&
                     std::memcmp(other.data(), first.data(), bytesOf(first)) == 0,
                 "rank ", r, "'s copy of the replicated output ", complete.outputs()[o].val->name(),
                 " differs from rank 0's");
      }
      out.push_back(first);
      continue;
    }
    std::vector<Tensor> parts;
    for (const auto& rankOutputs : perRank) {
      parts.push_back(denseAxisFirst(rankOutputs.at(o), axis));
    }
    std::vector<int64_t> sizes = parts[0].sizes();
    sizes[0] *= static_cast<int64_t>(parts.size());
    Tensor whole = Tensor::empty(parts[0].dtype(), sizes);
    auto* dst = static_cast<std::byte*>(whole.data());
    for (const Tensor& part : parts) {
      const size_t bytes = bytesOf(part);
      std::memcpy(dst, part.data(), bytes);
      dst += bytes;
    }
    out.push_back(fromAxisFirst(whole, axis));
  }
  return out;
}

std::vector<std::vector<Tensor>> runRanksAsThreads(const MultiDeviceProgram& program,
                                                   const Arguments& globalInputs,
                                                   std::vector<CommunicationRecord>* records) {
  const int64_t n = program.ranks();
  auto group = std::make_shared<ThreadGroup>(n);
  std::vector<std::vector<Tensor>> outputs(static_cast<size_t>(n));
  std::vector<std::exception_ptr> errors(static_cast<size_t>(n));
  std::vector<std::vector<CommunicationRecord>> perRankRecords(static_cast<size_t>(n));
  std::vector<std::thread> threads;
  for (int64_t r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      const size_t i = static_cast<size_t>(r);
      ThreadCommunicator comm(group, r);
      try {
        ReferenceSegmentBackend backend;
        outputs[i] = program.runRank(globalInputs, comm, backend, &perRankRecords[i]);
      } catch (const std::exception& e) {
        errors[i] = std::current_exception();
        comm.abort("rank " + std::to_string(r) + ": " + e.what());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  // The failing rank's own error first, not another's "another rank failed".
  for (size_t i = 0; i < errors.size(); ++i) {
    if (!errors[i]) continue;
    try {
      std::rethrow_exception(errors[i]);
    } catch (const UserError& e) {
      if (std::string(e.what()).find("another rank failed") == std::string::npos) throw;
    }
  }
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  if (records != nullptr) *records = perRankRecords[0];
  return outputs;
}

}  // namespace fuserlab::runtime
