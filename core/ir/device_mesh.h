// DeviceMesh: the devices a TensorView lives on (nvFuser's 1-D DeviceMesh).
// A tensor with a mesh is replicated on every device of the mesh unless one
// of its loop axes is device-parallel (DIDx), in which case each device holds
// the slice of that axis its position in the mesh selects.
//
// It lives in ir (not core/multidevice) because a TensorView carries it, as
// it carries its dtype: ir must not depend on the multidevice library, which
// builds on ir. Invariant: device ids are distinct and non-negative.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fuserlab::ir {

class DeviceMesh {
 public:
  DeviceMesh() = default;
  //! A mesh of the given device ids (distinct, >= 0; else a UserError).
  explicit DeviceMesh(std::vector<int64_t> devices);
  //! The mesh {0, 1, ..., count - 1}.
  static DeviceMesh forCount(int64_t count);

  const std::vector<int64_t>& devices() const { return devices_; }
  int64_t size() const { return static_cast<int64_t>(devices_.size()); }
  bool empty() const { return devices_.empty(); }
  //! The position of `device` in the mesh, or -1 if it is not in it.
  int64_t indexOf(int64_t device) const;
  bool has(int64_t device) const { return indexOf(device) >= 0; }

  //! "mesh{0 1 2 3}".
  std::string toString() const;

  bool operator==(const DeviceMesh&) const = default;

 private:
  std::vector<int64_t> devices_;
};

}  // namespace fuserlab::ir
