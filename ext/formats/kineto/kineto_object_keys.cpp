#include "formats/kineto/kineto_object_keys.h"

#include <cstring>
#include <functional>

namespace rocpd::formats::kineto {

void ObjectKeys::open() {
  if (depth_ == frames_.size()) frames_.emplace_back();
  Frame& f = frames_[depth_++];
  f.first = entries_.size();
  f.index.clear();
}

void ObjectKeys::close() {
  if (depth_ == 0) return;
  const Frame& f = frames_[--depth_];
  if (f.first < entries_.size()) {
    text_.resize(entries_[f.first].at);
    entries_.resize(f.first);
  }
}

bool ObjectKeys::same(const Entry& e, std::string_view key) const {
  return e.size == key.size() && std::memcmp(text_.data() + e.at, key.data(), key.size()) == 0;
}

void ObjectKeys::rebuild(Frame& f) {
  const size_t n = entries_.size() - f.first;
  size_t slots = 64;
  while (slots < 4 * n) slots *= 2;
  f.index.assign(slots, 0);
  for (size_t i = f.first; i < entries_.size(); ++i) {
    size_t s = entries_[i].hash & (slots - 1);
    while (f.index[s] != 0) s = (s + 1) & (slots - 1);
    f.index[s] = static_cast<uint32_t>(i - f.first + 1);
  }
}

ObjectKeys::Add ObjectKeys::add(std::string_view key) {
  if (depth_ == 0) return Add::Ok;
  Frame& f = frames_[depth_ - 1];
  const uint64_t hash = std::hash<std::string_view>{}(key);
  const size_t n = entries_.size() - f.first;
  if (f.index.empty()) {
    for (size_t i = f.first; i < entries_.size(); ++i)
      if (entries_[i].hash == hash && same(entries_[i], key)) return Add::Repeated;
  } else {
    const size_t mask = f.index.size() - 1;
    for (size_t s = hash & mask; f.index[s] != 0; s = (s + 1) & mask) {
      const Entry& e = entries_[f.first + f.index[s] - 1];
      if (e.hash == hash && same(e, key)) return Add::Repeated;
    }
  }
  if (text_.size() + key.size() > max_bytes_ || n + 1 >= UINT32_MAX) return Add::TooMany;
  entries_.push_back({hash, text_.size(), key.size()});
  text_.append(key);
  if (n + 1 == kLinear || (!f.index.empty() && 2 * (n + 1) > f.index.size())) {
    rebuild(f);
  } else if (!f.index.empty()) {
    const size_t mask = f.index.size() - 1;
    size_t s = hash & mask;
    while (f.index[s] != 0) s = (s + 1) & mask;
    f.index[s] = static_cast<uint32_t>(n + 1);
  }
  return Add::Ok;
}

}  // namespace rocpd::formats::kineto
