// PassOptions: the switches the pre-segmentation passes read — which meta ops
// become kernel-free segments (bookend) and which passes are off. Part of
// compiler::CompileOptions, which sets them by name (core/compiler).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fuserlab::passes {

//! mark_aliases_prepare: which meta ops become kernel-free segments.
enum class BookendMode : uint8_t {
  None,              //!< keep meta ops inside kernels
  Outputs,           //!< meta ops feeding only outputs, and outputs that
                     //!< view an input (nvFuser's default)
  InputsAndOutputs,  //!< also meta ops applied to inputs (seed 001)
};

//! Each BookendMode's name, as `--set bookend=NAME` takes it.
inline constexpr std::array<std::pair<std::string_view, BookendMode>, 3> kBookendModeNames = {
    {{"none", BookendMode::None},
     {"outputs", BookendMode::Outputs},
     {"inputs_and_outputs", BookendMode::InputsAndOutputs}}};

std::string_view toString(BookendMode mode);

struct PassOptions {
  BookendMode bookend = BookendMode::Outputs;
  //! refine_reshaped_reductions (a GroupNorm's statistics over the finer axes
  //! its reshape merged, core/passes/refine_reshaped_reductions.h): on; off
  //! with `--set refine_reshaped_reductions=off`.
  bool refineReshapedReductions = true;
  //! Names of passes switched off (`--disable-pass NAME`).
  std::vector<std::string> disabledPasses;

  //! Switches a pass off; a UserError lists the pass names if unknown.
  void disablePass(std::string_view passName);
  bool passEnabled(std::string_view passName) const;
};

}  // namespace fuserlab::passes
