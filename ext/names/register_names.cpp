// Registers the SQL names of the names capability: demangle, kernel_short_name,
// rocpd_display_name, rocpd_duration_text, rocpd_version, rocpd_build_info.
#include "common/sqlite_util.h"

namespace rocpd::names {
void demangle_sql(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void kernel_short_name_sql(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void display_name_sql(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void duration_text_sql(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void rocpd_version_sql(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void rocpd_build_info_sql(sqlite3_context* ctx, int argc, sqlite3_value** argv);
}  // namespace rocpd::names

int rocpd_register_names(sqlite3* db, char** err) {
  return rocpd::guard(err, [&] {
    using namespace rocpd::names;
    struct Function {
      const char* name;
      int args;
      void (*fn)(sqlite3_context*, int, sqlite3_value**);
    };
    static constexpr Function kFunctions[] = {
        {"demangle", 1, demangle_sql},
        {"kernel_short_name", 1, kernel_short_name_sql},
        {"rocpd_display_name", 1, display_name_sql},
        {"rocpd_duration_text", 1, duration_text_sql},
        {"rocpd_version", 0, rocpd_version_sql},
        {"rocpd_build_info", 0, rocpd_build_info_sql},
    };
    for (const Function& f : kFunctions) {
      int rc = sqlite3_create_function_v2(db, f.name, f.args, rocpd::kPureFunction, nullptr, f.fn, nullptr,
                                          nullptr, nullptr);
      if (rc != SQLITE_OK) throw rocpd::Error(std::string("names: cannot register ") + f.name, rc);
    }
    return SQLITE_OK;
  });
}
