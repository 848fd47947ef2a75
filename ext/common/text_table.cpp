#include "common/text_table.h"

#include <algorithm>

namespace rocpd {

std::size_t display_width(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string cut_to_width(std::string shown, std::size_t max_width) {
  if (display_width(shown) <= max_width) return shown;
  std::size_t kept = 0, i = 0;
  for (; i < shown.size(); ++i) {
    if ((static_cast<unsigned char>(shown[i]) & 0xC0) == 0x80) continue;  // inside a character
    if (kept == max_width - 3) break;
    ++kept;
  }
  shown.resize(i);
  return shown + "...";
}

std::string cell_text(int sqlite_type, const void* data, int bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  if (sqlite_type == SQLITE_NULL || !data || bytes <= 0) return {};  // no data: out of memory, shown as NULL
  const auto* p = static_cast<const unsigned char*>(data);
  const auto n = static_cast<std::size_t>(bytes);
  if (sqlite_type != SQLITE_BLOB) return std::string(reinterpret_cast<const char*>(p), n);
  std::string out;
  out.reserve(2 * n);
  for (std::size_t k = 0; k < n; ++k) {
    out += kHex[p[k] >> 4];
    out += kHex[p[k] & 15];
  }
  return out;
}

TextTable::TextTable(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& sample,
                     std::vector<bool> right)
    : header_(header), width_(header.size(), 0), right_(std::move(right)) {
  right_.resize(header.size(), false);
  for (std::size_t i = 0; i < header.size(); ++i) {
    width_[i] = display_width(header[i]);
    for (const auto& row : sample) width_[i] = std::max(width_[i], display_width(row[i]));
  }
}

void TextTable::head(std::string& out) const {
  line(out, header_);
  std::vector<std::string> rule(width_.size());
  for (std::size_t i = 0; i < width_.size(); ++i) rule[i] = std::string(width_[i], '-');
  line(out, rule);
}

void TextTable::line(std::string& out, const std::vector<std::string>& texts) const {
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const std::size_t w = display_width(texts[i]), fill = w < width_[i] ? width_[i] - w : 0;
    const bool last = i + 1 == texts.size();
    if (i) out += "  ";
    if (right_[i]) out.append(fill, ' ');
    out += texts[i];
    if (!right_[i] && !last) out.append(fill, ' ');
  }
  out += '\n';
}

}  // namespace rocpd
