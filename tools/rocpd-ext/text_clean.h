// Text as every output format prints it: valid UTF-8 (names of files and kernels are bytes; a
// terminal, a JSON parser and a browser need UTF-8), and for the formats read on a terminal no
// control character (an ESC in a kernel name would drive the terminal).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace rocpd_cli {

// `s` with each byte that is not part of a valid UTF-8 sequence replaced by U+FFFD.
std::string valid_utf8(std::string_view s);
// valid_utf8(s) on one line: line breaks and tabs become a space, other control characters
// (C0, DEL, C1) their escape `\xHH` (or `\u0085`-style for C1), so they show instead of acting.
std::string terminal_text(std::string_view s);
// Display width of valid UTF-8 text: its code points (continuation bytes do not count).
std::size_t display_width(std::string_view s);

}  // namespace rocpd_cli
