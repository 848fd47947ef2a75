#include "members/member_probe.h"

#include <fmt/format.h>

#include "formats/adapter.h"
#include "formats/probe_util.h"

namespace rocpd::members {

std::optional<canonical::FormatInfo> probe_format(sqlite3* db, const std::string& schema, const std::string& label) {
  formats::Catalog names;
  try {
    names = formats::read_catalog(db, schema);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: not a readable SQLite database ({})", label, e.what()), e.code());
  }
  for (const formats::FormatAdapter* adapter : formats::format_adapters()) {
    if (!adapter->claims(names)) continue;
    try {
      canonical::FormatInfo info = adapter->probe(db, schema, names, label);
      info.adapter = adapter;
      return info;
    } catch (const Error& e) {
      if (e.code() == SQLITE_ERROR) throw;
      throw Error(fmt::format("{}: {}", label, e.what()), e.code());
    }
  }
  return std::nullopt;
}

}  // namespace rocpd::members
