// VectorLanes: the index algebra of a vectorized pass. Lane j of a vector of
// `width` elements sits at `lane` = `base` + j on the reference's innermost
// axis, `base` a multiple of the width (the kernel's vector_ok check keeps
// every vector inside one row of that axis). An index that is the lane plus
// a kernel-uniform shift (`(lane_a3 - 64)` after a cat, `(lane_a3 +
// slice_start0)` after a slice) is *lane-affine*. Where its shift is a
// multiple of the width, a load at it is one vector at base + shift, and a
// bound that is a multiple of the width compares the same way for every
// lane, so a cat or pad branch on it is taken once per vector. Shifts and
// bounds known only at run time become requirements that the kernel checks
// once (vector_ok); a statically misaligned one leaves the index per lane.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fuserlab::codegen {

//! A constant plus signed index_t terms (kernel-uniform expressions), kept
//! apart so that constants fold and a term added then subtracted cancels.
struct IndexSum {
  int64_t constant = 0;
  //! Term text -> multiplicity (+1, -1, ...); std::map for a stable order.
  std::map<std::string, int64_t> terms;

  static IndexSum of(int64_t value);
  static IndexSum term(const std::string& text);
  bool isConstant() const { return terms.empty(); }
  bool isZero() const { return terms.empty() && constant == 0; }
  IndexSum operator+(const IndexSum& other) const;
  IndexSum operator-(const IndexSum& other) const;
  //! "64", "(-64)", "(slice_start0 - 64)".
  std::string text() const;
  //! `x` plus this sum: `x` itself when zero, else "(x + t - 64)".
  std::string addedTo(const std::string& x) const;
};

class VectorLanes {
 public:
  //! `lane` and `base` are index_t variables of the kernel (lane_a3, a3).
  VectorLanes(std::string lane, std::string base, int64_t width);

  const std::string& lane() const { return lane_; }
  const std::string& base() const { return base_; }
  int64_t width() const { return width_; }
  //! Whether `index` names no lane (and no per-lane local), so it is the
  //! same for every lane of a vector.
  bool laneFree(const std::string& index) const;
  //! The shift of a lane-affine `index` (the lane itself has shift 0), or
  //! nullptr.
  const IndexSum* shiftOf(const std::string& index) const;
  //! The lane-affine index lane + `shift` (remembered as such).
  std::string shifted(const IndexSum& shift);
  //! A lane-affine `index` at lane 0: base + its shift.
  std::string baseOf(const std::string& index) const;
  //! Whether every value is a multiple of the width: false if one is
  //! statically not (nothing recorded); otherwise true, and the values only
  //! known at run time become requirements.
  bool requireAligned(const std::vector<IndexSum>& values);
  //! Records that the term `text` is a multiple of the width wherever it is
  //! evaluated (proved where it is made, e.g. a reshape's position at the
  //! vector's base modulo an extent the width divides): requireAligned
  //! takes it as aligned instead of requiring it at run time.
  void markAligned(const std::string& text) { alignedTerms_.push_back(text); }
  //! Marks that the pass relies on vectors not crossing rows (a lane-affine
  //! index with a shift or a branch decided once per vector).
  void markRows() { rows_ = true; }
  bool usesRows() const { return rows_; }
  //! Expressions that must be multiples of kVector for the vectorized pass.
  const std::vector<std::string>& requirements() const { return requirements_; }

 private:
  std::string lane_;
  std::string base_;
  int64_t width_;
  //! Lane-affine index text -> its shift.
  std::map<std::string, IndexSum> shifts_;
  std::vector<std::string> requirements_;
  std::vector<std::string> alignedTerms_;
  bool rows_ = false;
};

}  // namespace fuserlab::codegen
