#include "critical_path/sync_records.h"

#include <rapidjson/document.h>

#include "members/member_columns.h"

namespace rocpd::critical_path {

namespace {
std::optional<int64_t> integer(const rapidjson::Document& args, const char* key) {
  const auto it = args.FindMember(key);
  if (it == args.MemberEnd() || !it->value.IsInt64()) return std::nullopt;
  const int64_t v = it->value.GetInt64();
  if (v < 0) return std::nullopt;  // the PyTorch profiler writes -1 for "none"
  return v;
}

SyncKind kind_of(std::string_view name) {
  if (name == "Stream Sync") return SyncKind::StreamSync;
  if (name == "Event Sync") return SyncKind::EventSync;
  if (name == "Context Sync") return SyncKind::ContextSync;
  if (name == "Stream Wait Event") return SyncKind::StreamWaitEvent;
  return SyncKind::Other;
}
}  // namespace

std::vector<SyncRecord> read_sync_records(const canonical::Member& m, sqlite3* conn,
                                          const std::unordered_map<int64_t, uint32_t>& calls,
                                          const std::function<void()>& tick) {
  using namespace canonical;
  using namespace members;
  enum { kDomain, kName, kArgs };
  std::vector<SyncRecord> out;
  MemberColumns rows(m, conn, TableKind::Apis, {kApisDomain, kApisName, kApisArgs}, nullptr,
                     std::pair<int, std::string>{kApisDomain, "cuda_sync"});
  rapidjson::Document args;
  while (rows.next()) {
    tick();
    const StoredValue domain = rows[kDomain], name = rows[kName], text = rows[kArgs];
    if (domain.type != SQLITE_TEXT || text.type != SQLITE_TEXT) continue;
    if (std::string_view(static_cast<const char*>(domain.bytes), static_cast<size_t>(domain.length)) != "cuda_sync")
      continue;
    args.Parse(static_cast<const char*>(text.bytes), static_cast<size_t>(text.length));
    if (args.HasParseError() || !args.IsObject()) continue;
    const auto call = integer(args, "call");
    if (!call) continue;
    const auto it = calls.find(*call);
    if (it == calls.end()) continue;
    SyncRecord r;
    r.kind = name.type == SQLITE_TEXT
                 ? kind_of(std::string_view(static_cast<const char*>(name.bytes), static_cast<size_t>(name.length)))
                 : SyncKind::Other;
    r.call = it->second;
    r.stream = integer(args, "stream");
    r.device = integer(args, "device");
    r.event_stream = integer(args, "event_stream");
    if (const auto ec = integer(args, "event_call")) {
      const auto e = calls.find(*ec);
      if (e != calls.end()) r.event_call = e->second;
    }
    out.push_back(r);
  }
  return out;
}

}  // namespace rocpd::critical_path
