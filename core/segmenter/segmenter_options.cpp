#include "core/segmenter/segmenter_options.h"

#include "core/ir/error.h"

namespace fuserlab::segmenter {

std::string_view toString(UpcastStrategy strategy) {
  for (const auto& [name, entry] : kUpcastStrategyNames) {
    if (entry == strategy) return name;
  }
  FL_ASSERT(false, "an upcast strategy without a name: ", static_cast<int>(strategy));
  return {};
}

}  // namespace fuserlab::segmenter
