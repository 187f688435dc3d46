#include "core/tensor/npy.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <string_view>

#include "core/ir/bounded_file.h"
#include "core/ir/output_file.h"
#include "core/tensor/element_type.h"

namespace fuserlab::runtime {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the .npy reader and writer assume a little-endian host");

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr size_t kPreambleV1 = 10;  // magic, version (2), header length (2)
constexpr size_t kPreambleV2 = 12;  // ... header length (4)
constexpr size_t kHeaderAlignment = 64;
// A real header is a few hundred bytes; this bounds what a corrupt length can
// make us read.
constexpr uint32_t kMaxHeaderBytes = 1u << 20;

struct NpyDtype {
  std::string_view descr;
  ir::DataType dtype;
};

constexpr std::array<NpyDtype, 6> kNpyDtypes = {{
    {"|b1", ir::DataType::Bool},
    {"<i4", ir::DataType::Int32},
    {"<i8", ir::DataType::Int},
    {"<f2", ir::DataType::Half},
    {"<f4", ir::DataType::Float},
    {"<f8", ir::DataType::Double},
}};

std::string_view descrOf(ir::DataType dtype) {
  for (const auto& entry : kNpyDtypes) {
    if (entry.dtype == dtype) return entry.descr;
  }
  FL_ASSERT(false, "no .npy descr for ", ir::toString(dtype));
  return {};
}

std::string supportedDescrs() {
  std::string out;
  for (const auto& entry : kNpyDtypes) {
    out += (out.empty() ? "" : ", ");
    out += entry.descr;
  }
  return out;
}

std::string shapeLiteral(const std::vector<int64_t>& sizes) {
  std::string out = "(";
  for (size_t i = 0; i < sizes.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(sizes[i]);
  }
  if (sizes.size() == 1) out += ",";
  return out + ")";
}

[[noreturn]] void failRead(const std::string& path, const std::string& why) {
  FL_USER_ERROR("readNpy: '", path, "' is not a valid .npy file: ", why);
}

//! The header dictionary of a .npy file.
struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
};

//! Parses the Python literal dict numpy writes, e.g.
//! {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& path) : text_(text), path_(path) {}

  NpyHeader parse() {
    NpyHeader header;
    bool hasDescr = false, hasFortranOrder = false, hasShape = false;
    expect('{');
    while (!peekIs('}')) {
      const std::string key = parseString();
      expect(':');
      if (key == "descr") {
        header.descr = parseString();
        hasDescr = true;
      } else if (key == "fortran_order") {
        header.fortranOrder = parseBool();
        hasFortranOrder = true;
      } else if (key == "shape") {
        header.shape = parseShape();
        hasShape = true;
      } else {
        fail("unexpected key '" + key + "' in the header");
      }
      if (!peekIs('}')) expect(',');
    }
    expect('}');
    skipSpace();
    if (pos_ != text_.size()) fail("unexpected text after the header dict");
    if (!hasDescr || !hasFortranOrder || !hasShape) {
      fail("the header must have the keys 'descr', 'fortran_order' and 'shape'");
    }
    return header;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    constexpr size_t kShownChars = 200;
    std::string shown(text_.substr(0, kShownChars));
    if (text_.size() > kShownChars) shown += "...";
    failRead(path_, why + " (header: " + shown + ")");
  }

  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool peekIs(char c) {
    skipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }

  void expect(char c) {
    if (!peekIs(c)) fail(std::string("expected '") + c + "' at offset " + std::to_string(pos_));
    ++pos_;
  }

  std::string parseString() {
    skipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      fail("expected a quoted string at offset " + std::to_string(pos_));
    }
    const char quote = text_[pos_++];
    const size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string value(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return value;
  }

  bool parseBool() {
    skipSpace();
    for (auto [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      if (text_.substr(pos_).starts_with(word)) {
        pos_ += std::strlen(word);
        return value;
      }
    }
    fail("expected True or False for 'fortran_order'");
  }

  std::vector<int64_t> parseShape() {
    std::vector<int64_t> shape;
    expect('(');
    while (!peekIs(')')) {
      shape.push_back(parseExtent());
      if (!peekIs(')')) expect(',');
    }
    expect(')');
    return shape;
  }

  int64_t parseExtent() {
    skipSpace();
    const size_t start = pos_;
    int64_t value = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      if (__builtin_mul_overflow(value, 10, &value) ||
          __builtin_add_overflow(value, text_[pos_] - '0', &value)) {
        fail("a shape extent overflows 64 bits");
      }
      ++pos_;
    }
    if (pos_ == start) fail("expected a non-negative integer in 'shape'");
    return value;
  }

  std::string_view text_;
  const std::string& path_;
  size_t pos_ = 0;
};

std::string buildHeader(const Tensor& tensor, std::string_view descr) {
  std::string dict = "{'descr': '" + std::string(descr) +
                     "', 'fortran_order': False, 'shape': " + shapeLiteral(tensor.sizes()) + ", }";
  // Pad with spaces and end in '\n' so the data starts 64-byte aligned.
  const size_t unpadded = kPreambleV1 + dict.size() + 1;
  dict.append((kHeaderAlignment - unpadded % kHeaderAlignment) % kHeaderAlignment, ' ');
  dict += '\n';
  return dict;
}

}  // namespace

void writeNpy(const std::string& path, const Tensor& tensor) {
  FL_CHECK(tensor.defined(), "writeNpy: cannot write an undefined tensor to '", path, "'");
  FL_CHECK(tensor.isCpu(), "writeNpy: '", path, "' needs a CPU tensor, got ", tensor.toString());
  const bool widen = ir::isReducedPrecision(tensor.dtype());
  const Tensor contiguous = widen ? tensor.to(ir::DataType::Float) : tensor.contiguous();
  const std::string header = buildHeader(contiguous, descrOf(contiguous.dtype()));
  FL_CHECK(header.size() <= 0xFFFF, "writeNpy: the header for '", path,
           "' is too long for format version 1.0");

  ir::OutputFile out(path);
  const uint16_t headerBytes = static_cast<uint16_t>(header.size());
  const std::array<char, 4> version = {1, 0, static_cast<char>(headerBytes & 0xFF),
                                       static_cast<char>(headerBytes >> 8)};
  out.write(kMagic.data(), kMagic.size());
  out.write(version.data(), version.size());
  out.write(header);

  const size_t dataBytes = static_cast<size_t>(contiguous.numel()) *
                           static_cast<size_t>(ir::sizeInBytes(contiguous.dtype()));
  if (contiguous.dtype() == ir::DataType::Bool) {
    // Borrowed bool memory may hold bytes other than 0/1; numpy wants 0/1.
    const auto* in = static_cast<const uint8_t*>(contiguous.data());
    std::vector<uint8_t> chunk;
    constexpr size_t kChunkBytes = 1 << 16;
    for (size_t begin = 0; begin < dataBytes; begin += kChunkBytes) {
      const size_t count = std::min(kChunkBytes, dataBytes - begin);
      chunk.resize(count);
      for (size_t i = 0; i < count; ++i) chunk[i] = in[begin + i] != 0;
      out.write(chunk.data(), count);
    }
  } else if (dataBytes > 0) {
    out.write(contiguous.data(), dataBytes);
  }
  out.close();
}

Tensor readNpy(const std::string& path) {
  // A regular file only: a named pipe would block the open below, a device
  // feeds bytes without end. Its size bounds what is read (the header must
  // agree with it), so no further bound.
  ir::requireRegularFile(path, "tensor file (readNpy)", std::numeric_limits<uint64_t>::max());
  std::ifstream in(path, std::ios::binary);
  FL_CHECK(in.is_open(), "readNpy: cannot open '", path, "': ", std::strerror(errno));
  in.seekg(0, std::ios::end);
  const std::streamoff fileBytes = in.tellg();
  FL_CHECK(fileBytes >= 0, "readNpy: cannot determine the size of '", path, "'");
  in.seekg(0, std::ios::beg);

  auto readExactly = [&](void* into, size_t count, const char* what) {
    in.read(static_cast<char*>(into), static_cast<std::streamsize>(count));
    if (static_cast<size_t>(in.gcount()) != count) {
      failRead(path, std::string("the file ends inside the ") + what);
    }
  };

  std::array<unsigned char, kPreambleV2> preamble{};
  if (static_cast<size_t>(fileBytes) < kPreambleV1) {
    failRead(path, "the file is too short (" + std::to_string(fileBytes) + " bytes)");
  }
  readExactly(preamble.data(), kPreambleV1, "preamble");
  if (std::memcmp(preamble.data(), kMagic.data(), kMagic.size()) != 0) {
    failRead(path, "it does not start with the magic string \\x93NUMPY");
  }
  const int major = preamble[6];
  const int minor = preamble[7];
  if (!((major == 1 || major == 2 || major == 3) && minor == 0)) {
    failRead(path, "unsupported format version " + std::to_string(major) + "." +
                       std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  }
  uint32_t headerBytes = 0;
  size_t preambleBytes = kPreambleV1;
  if (major == 1) {
    headerBytes = preamble[8] | (uint32_t{preamble[9]} << 8);
  } else {
    readExactly(preamble.data() + kPreambleV1, kPreambleV2 - kPreambleV1, "preamble");
    headerBytes = preamble[8] | (uint32_t{preamble[9]} << 8) | (uint32_t{preamble[10]} << 16) |
                  (uint32_t{preamble[11]} << 24);
    preambleBytes = kPreambleV2;
  }
  if (headerBytes > kMaxHeaderBytes ||
      headerBytes > static_cast<uint64_t>(fileBytes) - preambleBytes) {
    failRead(path,
             "the header length " + std::to_string(headerBytes) + " runs past the end of the file");
  }
  std::string headerText(headerBytes, '\0');
  readExactly(headerText.data(), headerBytes, "header");
  if (headerText.find('\0') != std::string::npos) {
    failRead(path, "the header contains a NUL byte");
  }
  const NpyHeader header = HeaderParser(headerText, path).parse();

  std::optional<ir::DataType> dtype;
  for (const auto& entry : kNpyDtypes) {
    if (entry.descr == header.descr) dtype = entry.dtype;
  }
  if (!dtype) {
    FL_USER_ERROR("readNpy: '", path, "' has dtype '", header.descr,
                  "', which FuserLab does not read (supported: ", supportedDescrs(), ")");
  }

  const int64_t elementBytes = ir::sizeInBytes(*dtype);
  const uint64_t dataBytes = static_cast<uint64_t>(fileBytes) - preambleBytes - headerBytes;
  // Checked against the file size before allocating, so a corrupt shape
  // cannot ask for an absurd allocation.
  int64_t numel = 1;
  for (int64_t extent : header.shape) {
    if (__builtin_mul_overflow(numel, extent, &numel)) {
      failRead(path, "the shape " + shapeLiteral(header.shape) + " overflows 64 bits");
    }
  }
  int64_t expectedBytes = 0;
  if (__builtin_mul_overflow(numel, elementBytes, &expectedBytes) ||
      static_cast<uint64_t>(expectedBytes) != dataBytes) {
    failRead(path, "shape " + shapeLiteral(header.shape) + " of '" + header.descr + "' needs " +
                       std::to_string(expectedBytes) + " bytes of data but the file has " +
                       std::to_string(dataBytes));
  }

  // Fortran order is C order of the reversed shape; read that, then permute.
  std::vector<int64_t> storedShape = header.shape;
  if (header.fortranOrder) std::reverse(storedShape.begin(), storedShape.end());
  Tensor stored = Tensor::empty(*dtype, storedShape);
  if (dataBytes > 0) readExactly(stored.data(), dataBytes, "data");
  if (*dtype == ir::DataType::Bool) {
    auto* bytes = stored.dataAs<uint8_t>();
    for (int64_t i = 0; i < numel; ++i) bytes[i] = bytes[i] != 0;
  }
  if (!header.fortranOrder) return stored;
  std::vector<int64_t> reversedDims(storedShape.size());
  for (size_t i = 0; i < reversedDims.size(); ++i) {
    reversedDims[i] = static_cast<int64_t>(reversedDims.size() - 1 - i);
  }
  return stored.permute(reversedDims).contiguous();
}

}  // namespace fuserlab::runtime
