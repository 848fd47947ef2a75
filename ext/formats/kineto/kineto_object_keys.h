// The keys of every JSON object open during a Kineto import, to refuse a key given twice in one
// object, wherever it is: JSON readers keep either the first value or the last (Python's json
// the last, SQLite's json_extract the first), so a trace that repeats a key means different
// things to different readers, and the import takes neither.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rocpd::formats::kineto {

class ObjectKeys {
 public:
  // The most key text the open objects may hold together (a hostile file's object of a million
  // distinct keys is refused, not stored).
  explicit ObjectKeys(size_t max_bytes) : max_bytes_(max_bytes) {}

  void open();
  void close();
  enum class Add { Ok, Repeated, TooMany };
  // Adds `key` to the innermost open object.
  Add add(std::string_view key);

 private:
  struct Entry {
    uint64_t hash;
    size_t at;  // in text_
    size_t size;
  };
  struct Frame {
    size_t first = 0;             // its first entry
    std::vector<uint32_t> index;  // open addressing over its entries (entry + 1; 0 = empty), built past kLinear keys
  };
  static constexpr size_t kLinear = 16;
  bool same(const Entry& e, std::string_view key) const;
  void rebuild(Frame& f);

  size_t max_bytes_;
  size_t depth_ = 0;
  std::vector<Frame> frames_;  // [0, depth_) open; the rest kept for their index's capacity
  std::vector<Entry> entries_;
  std::string text_;
};

}  // namespace rocpd::formats::kineto
