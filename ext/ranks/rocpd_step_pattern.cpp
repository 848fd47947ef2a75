// rocpd_step_pattern([pattern]) (docs/ranks.md, "Steps"): the LIKE pattern of the step ranges that
// rocpd_steps, rocpd_time_breakdown, rocpd_critical_path, rocpd_what_if and rocpd_run_steps take when
// given none. The connection's own (connection state: SQLITE_DIRECTONLY): it starts as
// $ROCPD_STEP_PATTERN when that is set and not empty (`rocpd-ext --steps PATTERN` sets it), else
// 'ProfilerStep#%'; rocpd_step_pattern('train_step%') sets it, rocpd_step_pattern(NULL) restores the
// starting one; both return the pattern in force.
#include <fmt/format.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "common/like_pattern.h"
#include "analysis/step_ranges.h"
#include "ranks/register.h"

namespace rocpd::ranks {
namespace {

struct State {
  std::string initial, pattern;
};

void result(sqlite3_context* ctx, const std::string& s) {
  sqlite3_result_text(ctx, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
}

void get(sqlite3_context* ctx, int, sqlite3_value**) { result(ctx, static_cast<State*>(sqlite3_user_data(ctx))->pattern); }

void set(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guard(ctx, [&] {
    auto* state = static_cast<State*>(sqlite3_user_data(ctx));
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
      state->pattern = state->initial;
    } else {
      std::string p = *like_pattern_arg(argv[0], "rocpd_step_pattern", "the pattern", "ProfilerStep#%");
      if (p.empty()) throw Error("rocpd_step_pattern: the pattern must not be empty");
      state->pattern = std::move(p);
    }
    result(ctx, state->pattern);
  });
}

}  // namespace

void register_step_pattern(sqlite3* db) {
  auto state = std::make_unique<State>();
  const char* env = std::getenv("ROCPD_STEP_PATTERN");
  state->initial = env && *env ? env : analysis::kDefaultStepPattern;
  state->pattern = state->initial;
  State* raw = state.get();
  // Connection state: direct only (as rocpd_set_run), usable in TEMP views (rocpd_run_steps). The
  // second registration owns the state.
  int rc = sqlite3_create_function_v2(db, "rocpd_step_pattern", 0, kFileFunction, raw, get, nullptr, nullptr, nullptr);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function_v2(db, "rocpd_step_pattern", 1, kFileFunction, state.release(), set, nullptr, nullptr,
                                    [](void* p) { delete static_cast<State*>(p); });
  if (rc != SQLITE_OK)
    throw Error(fmt::format("rocpd_ext: registering rocpd_step_pattern: {}", sqlite3_errmsg(db)), rc);
}

}  // namespace rocpd::ranks
