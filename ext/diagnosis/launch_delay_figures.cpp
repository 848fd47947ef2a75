#include "diagnosis/launch_delay_figures.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "analysis/member_read.h"
#include "common/big_alloc.h"
#include "members/member_columns.h"

namespace rocpd::diagnosis {

using namespace analysis;
namespace {

struct EndCall {
  bool found = false;
  int64_t start = 0, api_id = 0;
  int end_type = SQLITE_NULL;
  int64_t end = 0;
};

}  // namespace

std::vector<DelayFigures> launch_delay_figures(const canonical::Member& m, sqlite3* conn,
                                               const members::InterruptWatch& watch, const char* table,
                                               const KernelVisitor* also) {
  using namespace canonical;
  using namespace members;
  struct Kernel {
    int64_t corr, start;
    int start_type;
    uint32_t gpu;  // index into keys
  };
  BigVector<Kernel> kernels;
  BigVector<int64_t> corrs;
  std::vector<GpuKey> keys;
  std::map<GpuKey, uint32_t> key_index;
  uint64_t read = 0;
  {
    std::vector<int> columns{kOpsKind, kOpsGpu, kOpsStart, kOpsCorrelationId};
    if (also) columns.insert(columns.end(), {kOpsEnd, kOpsName});
    MemberColumns ops(m, conn, TableKind::Ops, columns, nullptr, std::pair<int, std::string>{kOpsKind, "kernel"});
    std::optional<int64_t> last_gpu;  // the key of the previous row's integer gpu, most rows repeat it
    uint32_t last_index = 0;
    while (ops.next()) {
      if ((++read & 0xffff) == 0 && watch.stopped()) InterruptWatch::raise();
      const StoredValue kind = ops[0];
      if (kind.type != SQLITE_TEXT ||
          std::string_view(static_cast<const char*>(kind.bytes), static_cast<size_t>(kind.length)) != "kernel")
        continue;
      const StoredValue corr = ops[3], start = ops[2], gpu = ops[1];
      if (also) {
        const StoredValue end = ops[4], name = ops[5];
        (*also)(KernelRow{gpu, start, end, name, ops.name_token()});
      }
      if (corr.type != SQLITE_INTEGER || start.type == SQLITE_NULL) continue;  // no launch, or no delay
      uint32_t index;
      if (gpu.type == SQLITE_INTEGER && last_gpu == gpu.i) {
        index = last_index;
      } else {
        GpuKey key = value_key(gpu);
        auto [it, added] = key_index.try_emplace(key, static_cast<uint32_t>(keys.size()));
        if (added) keys.push_back(std::move(key));
        index = it->second;
        if (gpu.type == SQLITE_INTEGER) {
          last_gpu = gpu.i;
          last_index = index;
        }
      }
      kernels.push_back({corr.i, start.type == SQLITE_INTEGER ? start.i : 0, start.type, index});
      corrs.push_back(corr.i);
    }
  }
  CorrSlots wanted;
  wanted.assign(corrs);
  corrs = {};
  BigVector<EndCall> calls(wanted.size());
  if (wanted.size() > 0) {
    MemberColumns apis(m, conn, TableKind::Apis, {kApisCorrelationId, kApisStart, kApisEnd, kApisApiId}, nullptr,
                       std::nullopt, {}, nullptr, true);
    scan_best_launches(
        apis, wanted, calls, table, m.alias,
        [&](EndCall& c, int64_t) {
          const StoredValue end = apis[2];
          c.end_type = end.type;
          c.end = end.type == SQLITE_INTEGER ? end.i : 0;
        },
        &watch);
  }
  std::vector<std::vector<int64_t>> values(keys.size());
  std::vector<DelayFigures> out(keys.size());
  for (const Kernel& k : kernels) {
    const EndCall& c = calls[static_cast<size_t>(wanted.find(k.corr))];
    if (!c.found || c.end_type == SQLITE_NULL) continue;
    DelayFigures& g = out[k.gpu];
    int64_t delay = 0;
    const GpuKey& gpu = keys[k.gpu];
    if (k.start_type != SQLITE_INTEGER || c.end_type != SQLITE_INTEGER || !(gpu.is_null() || gpu.type == SQLITE_INTEGER) ||
        __builtin_sub_overflow(k.start, c.end, &delay)) {
      ++g.inexact;
      continue;
    }
    values[k.gpu].push_back(delay);
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    DelayFigures& g = out[i];
    g.gpu = std::move(keys[i]);
    std::vector<int64_t>& v = values[i];
    g.delays = static_cast<int64_t>(v.size());
    if (v.empty()) continue;
    g.max = *std::max_element(v.begin(), v.end());
    g.med = stats::percentile_select(v, 50.0);
    g.p99 = stats::percentile_select(v, 99.0);
    v = {};
  }
  std::erase_if(out, [](const DelayFigures& g) { return g.delays == 0 && g.inexact == 0; });
  std::sort(out.begin(), out.end(), [](const DelayFigures& a, const DelayFigures& b) { return a.gpu < b.gpu; });
  return out;
}

}  // namespace rocpd::diagnosis
