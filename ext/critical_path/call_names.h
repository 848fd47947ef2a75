// What a call does, from its name where the formats record nothing else (docs/critical_path.md):
// *Synchronize* calls wait for GPU work, *EventRecord* calls record an event on a stream,
// *StreamWaitEvent* calls make a stream wait for one (HIP and CUDA spell them alike).
#pragma once
#include <string_view>

namespace rocpd::critical_path {

// Whether `text` holds `word` (lower case), ASCII case-insensitively.
inline bool contains_nocase(std::string_view text, std::string_view word) {
  if (word.size() > text.size()) return false;
  for (size_t i = 0; i + word.size() <= text.size(); ++i) {
    size_t j = 0;
    while (j < word.size()) {
      char c = text[i + j];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      if (c != word[j]) break;
      ++j;
    }
    if (j == word.size()) return true;
  }
  return false;
}

inline bool synchronize_call(std::string_view name) { return contains_nocase(name, "synchronize"); }
inline bool event_record_call(std::string_view name) { return contains_nocase(name, "eventrecord"); }
inline bool stream_wait_call(std::string_view name) { return contains_nocase(name, "streamwaitevent"); }

}  // namespace rocpd::critical_path
