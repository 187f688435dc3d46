// SegmenterOptions: the switches the segmenter reads — how it treats an
// upcast of an input that several exprs use (seed 000). Part of
// compiler::CompileOptions, which sets them by name (core/compiler).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>

namespace fuserlab::segmenter {

//! How the segmenter treats upcasts of inputs used by several exprs (seed 000).
enum class UpcastStrategy : uint8_t {
  Privatize,  //!< clone a multi-use upcast per use; revert clones that meet
  Forward,    //!< nvFuser's input forwarding: replicate unary chains from
              //!< inputs into each consumer segment
};

//! Each UpcastStrategy's name, as `--set upcast=NAME` takes it.
inline constexpr std::array<std::pair<std::string_view, UpcastStrategy>, 2> kUpcastStrategyNames = {
    {{"privatize", UpcastStrategy::Privatize}, {"forward", UpcastStrategy::Forward}}};

std::string_view toString(UpcastStrategy strategy);

struct SegmenterOptions {
  UpcastStrategy upcast = UpcastStrategy::Privatize;
};

}  // namespace fuserlab::segmenter
