#include "common/natural_order.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace rocpd {

namespace {
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
}  // namespace

int natural_compare(std::string_view a, std::string_view b) noexcept {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const auto ca = static_cast<unsigned char>(a[i]), cb = static_cast<unsigned char>(b[j]);
    if (is_digit(ca) && is_digit(cb)) {
      // Two digit runs: by value, i.e. by length without leading zeros, then digit by digit.
      size_t ea = i, eb = j;
      while (ea < a.size() && is_digit(static_cast<unsigned char>(a[ea]))) ++ea;
      while (eb < b.size() && is_digit(static_cast<unsigned char>(b[eb]))) ++eb;
      size_t za = i, zb = j;
      while (za + 1 < ea && a[za] == '0') ++za;
      while (zb + 1 < eb && b[zb] == '0') ++zb;
      const size_t la = ea - za, lb = eb - zb;
      if (la != lb) return la < lb ? -1 : 1;
      if (const int c = std::memcmp(a.data() + za, b.data() + zb, la)) return c < 0 ? -1 : 1;
      i = ea;
      j = eb;
      continue;
    }
    if (ca != cb) return ca < cb ? -1 : 1;
    ++i;
    ++j;
  }
  if (i < a.size() || j < b.size()) return i < a.size() ? 1 : -1;
  // Equal by value ("rank01" and "rank1"): the bytes decide, so only equal names compare equal.
  const int c = a.compare(b);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

void register_natural_collation(sqlite3* db) {
  const int rc = sqlite3_create_collation_v2(
      db, "rocpd_natural", SQLITE_UTF8, nullptr,
      [](void*, int na, const void* a, int nb, const void* b) {
        return natural_compare(std::string_view(static_cast<const char*>(a), static_cast<size_t>(na)),
                               std::string_view(static_cast<const char*>(b), static_cast<size_t>(nb)));
      },
      nullptr);
  // SQLITE_BUSY: the collation is already there (views and diagnosis both register it; a second
  // load) and a statement is running, e.g. the SELECT load_extension(...) loading us: SQLite
  // refuses to replace a collation then, and the one in place is this one.
  if (rc == SQLITE_BUSY) return;
  if (rc != SQLITE_OK) throw Error(fmt::format("rocpd_ext: registering rocpd_natural: {}", sqlite3_errmsg(db)), rc);
}

}  // namespace rocpd
