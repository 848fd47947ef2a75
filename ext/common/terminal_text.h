// Text from traces and arguments as messages carry it to a terminal: valid UTF-8, on one line, no
// control character (an ESC in a kernel name or a time column would drive the terminal: set its
// title, clear the screen). The extension's error messages (common/sqlite_util.h's guards) and the
// rocpd-ext command (its table cells, errors, warnings, titles) both escape through this.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace rocpd {

// `s` with each byte that is not part of a valid UTF-8 sequence replaced by U+FFFD.
std::string valid_utf8(std::string_view s);

// valid_utf8(s) on one line: line breaks and tabs become a space, other control characters
// (C0, DEL, C1) their escape `\xHH` (or `\u0085`-style for C1), so they show instead of acting.
std::string terminal_text(std::string_view s);

// A text value quoted in a message: 'text' (its first `max_bytes` bytes, cut between characters,
// then "..."), escaped as terminal_text does.
std::string quoted_text(std::string_view s, std::size_t max_bytes = 40);

}  // namespace rocpd
