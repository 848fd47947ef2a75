#include "text_clean.h"

#include "common/terminal_text.h"
#include "common/text_table.h"

namespace rocpd_cli {

// One escaping for the extension's messages and the command's output (common/terminal_text.h).
std::string valid_utf8(std::string_view s) { return rocpd::valid_utf8(s); }

std::string terminal_text(std::string_view s) { return rocpd::terminal_text(s); }

std::size_t display_width(std::string_view s) { return rocpd::display_width(s); }

}  // namespace rocpd_cli
