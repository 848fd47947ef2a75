// The protobuf wire format, hand-encoded (https://protobuf.dev/programming-guides/encoding/):
// enough to write Perfetto traces without libprotobuf. A message is built in a ProtoBuf, then
// embedded in its parent as a length-delimited field.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace rocpd::exporter {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2 };

// Writes `v` as a base-128 varint at p (room for 10 bytes); returns the end.
inline char* put_varint(char* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}

class ProtoBuf {
 public:
  void clear() { b_.clear(); }
  std::string_view view() const { return b_; }

  void varint(uint64_t v) {
    char tmp[10];
    b_.append(tmp, static_cast<size_t>(put_varint(tmp, v) - tmp));
  }
  void tag(uint32_t field, WireType wt) { varint((uint64_t{field} << 3) | wt); }
  // uint64, uint32, enum, bool; int64 and int32 too (negative: the 10-byte two's complement).
  void u64(uint32_t field, uint64_t v) {
    tag(field, kVarint);
    varint(v);
  }
  void i64(uint32_t field, int64_t v) { u64(field, static_cast<uint64_t>(v)); }
  void fixed64(uint32_t field, uint64_t v) {
    tag(field, kFixed64);
    char le[8];
    for (int i = 0; i < 8; ++i) le[i] = static_cast<char>(v >> (8 * i));
    b_.append(le, 8);
  }
  void dbl(uint32_t field, double d) {
    uint64_t v;
    std::memcpy(&v, &d, 8);
    fixed64(field, v);
  }
  // string, bytes or an embedded message.
  void bytes(uint32_t field, std::string_view s) {
    tag(field, kLengthDelimited);
    varint(s.size());
    b_.append(s);
  }
  void message(uint32_t field, const ProtoBuf& m) { bytes(field, m.view()); }

 private:
  std::string b_;
};

}  // namespace rocpd::exporter
