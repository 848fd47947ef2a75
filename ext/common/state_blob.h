// Byte layout helpers of the mergeable state BLOBs (docs/states.md): little-endian fixed-width
// writing and bounds-checked reading, and the header every kind of state starts with (4 magic
// bytes, a version byte). The magics of all kinds live here so that each reader can name the
// kind of a foreign state ("is an interval_union state, not a rocpd_stats state"). No SQLite here.
#pragma once
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rocpd::state_blob {

static_assert(std::endian::native == std::endian::little, "state BLOBs are written in the host's order");

// A malformed BLOB. The message completes "argument N ..." (the SQL layer adds the function and
// argument), e.g. "is not a rocpd_stats state (bad magic)".
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Kind {
  std::array<char, 4> magic;
  std::string_view name;  // as the docs and the error messages call it
};
inline constexpr Kind kStats{{'r', 'p', 'S', 'T'}, "rocpd_stats"};
inline constexpr Kind kIntervalUnion{{'r', 'p', 'I', 'U'}, "interval_union"};
inline constexpr Kind kKinds[] = {kStats, kIntervalUnion};

class Writer {
 public:
  // The header as an initializer list: GCC 12's -Wstringop-overflow misfires on a range insert
  // into the empty vector when inlined under -fsanitize=thread.
  Writer(const Kind& kind, std::uint8_t version)
      : bytes_{static_cast<std::uint8_t>(kind.magic[0]), static_cast<std::uint8_t>(kind.magic[1]),
               static_cast<std::uint8_t>(kind.magic[2]), static_cast<std::uint8_t>(kind.magic[3]), version} {}
  void u8(std::uint8_t v) { bytes_.push_back(v); }
  template <class T>
  void put(T v) {  // any trivially copyable fixed-width value (integers, double, __int128)
    const auto raw = std::bit_cast<std::array<std::uint8_t, sizeof(T)>>(v);
    bytes_.insert(bytes_.end(), raw.begin(), raw.end());
  }
  void reserve(std::size_t n) { bytes_.reserve(n); }
  std::vector<std::uint8_t> take() { return std::move(bytes_); }

 private:
  std::vector<std::uint8_t> bytes_;
};

class Reader {
 public:
  // Checks magic and version: wrong kind, unknown kind or another version throw FormatError.
  Reader(std::span<const std::uint8_t> blob, const Kind& kind, std::uint8_t version) : blob_(blob) {
    const std::string expected(kind.name);
    if (blob.size() < 4 || std::memcmp(blob.data(), kind.magic.data(), 4) != 0) {
      for (const Kind& other : kKinds) {
        if (blob.size() >= 4 && std::memcmp(blob.data(), other.magic.data(), 4) == 0)
          throw FormatError("is " + article(other.name) + std::string(other.name) + " state, not " +
                            article(kind.name) + expected + " state");
      }
      throw FormatError("is not " + article(kind.name) + expected + " state (bad magic)");
    }
    pos_ = 4;
    const std::uint8_t found = u8();
    if (found != version)
      throw FormatError("is " + article(kind.name) + expected + " state of version " + std::to_string(found) +
                        "; this build reads version " + std::to_string(version));
  }
  std::uint8_t u8() { return get<std::uint8_t>(); }
  template <class T>
  T get() {
    need(sizeof(T));
    std::array<std::uint8_t, sizeof(T)> raw;
    std::memcpy(raw.data(), blob_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return std::bit_cast<T>(raw);
  }
  std::size_t remaining() const noexcept { return blob_.size() - pos_; }
  // Throws unless `n` more bytes are there (truncated BLOB).
  void need(std::size_t n) const {
    if (remaining() < n) truncated();
  }
  // Throws unless `count` items of `size` bytes are there: a count read from the BLOB is checked
  // against its length before anything is allocated for it.
  void need_items(std::uint64_t count, std::size_t size) const {
    if (count > remaining() / size) truncated();
  }
  // Throws when bytes are left over after the last field.
  void finish() const {
    if (remaining() != 0)
      throw FormatError("is corrupt (" + std::to_string(remaining()) + " bytes after the last field)");
  }

 private:
  static std::string article(std::string_view name) {
    return name.empty() || std::string_view("aeiou").find(name[0]) == std::string_view::npos ? "a " : "an ";
  }
  [[noreturn]] void truncated() const {
    throw FormatError("is truncated (" + std::to_string(blob_.size()) + " bytes)");
  }
  std::span<const std::uint8_t> blob_;
  std::size_t pos_ = 0;
};

// A corrupt field: "is corrupt (<what>)".
[[noreturn]] inline void corrupt(std::string_view what) {
  throw FormatError("is corrupt (" + std::string(what) + ")");
}

}  // namespace rocpd::state_blob
