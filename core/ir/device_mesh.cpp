#include "core/ir/device_mesh.h"

#include <algorithm>

#include "core/ir/error.h"

namespace fuserlab::ir {

DeviceMesh::DeviceMesh(std::vector<int64_t> devices) : devices_(std::move(devices)) {
  for (size_t i = 0; i < devices_.size(); ++i) {
    FL_CHECK(devices_[i] >= 0, "DeviceMesh: device id ", devices_[i], " is negative");
    FL_CHECK(std::count(devices_.begin(), devices_.end(), devices_[i]) == 1, "DeviceMesh: device ",
             devices_[i], " appears more than once");
  }
}

DeviceMesh DeviceMesh::forCount(int64_t count) {
  FL_CHECK(count > 0, "DeviceMesh: a mesh needs at least one device, got ", count);
  std::vector<int64_t> devices(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) devices[static_cast<size_t>(i)] = i;
  return DeviceMesh(std::move(devices));
}

int64_t DeviceMesh::indexOf(int64_t device) const {
  auto it = std::find(devices_.begin(), devices_.end(), device);
  return it == devices_.end() ? -1 : it - devices_.begin();
}

std::string DeviceMesh::toString() const {
  std::string out = "mesh{";
  for (size_t i = 0; i < devices_.size(); ++i) {
    if (i) out += " ";
    out += std::to_string(devices_[i]);
  }
  return out + "}";
}

}  // namespace fuserlab::ir
