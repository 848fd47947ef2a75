// The rocpd DDL of each layout the generator writes, derived from schema/*.sql, and its parts for
// merged files (schema/rocpd_merged.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rocpd_model.h"

namespace rocpd_gen {

// The DDL text (with {{uuid}}/{{guid}} placeholders) of a layout: rocpd_v3.sql for the original
// layout and for 3.0.0 (whose writers store schema_version '3'); for 3.0.1 .. 3.0.5 the superset
// rocpd_v3_0_5.sql reduced to what that revision has.
std::string rocpd_schema_template(const RocpdFeatures& features);

std::string fill_placeholders(std::string text, std::string_view suffix, std::string_view guid);

// A DDL text split for a merged file: the per-process part (tables and metadata rows, before the
// "-- Unsuffixed views" divider), the base view names (rocpd_<name>) in DDL order, and the data and
// summary views (no placeholders).
struct SchemaParts {
  std::string tables;
  std::vector<std::string> base_views;
  std::string data_views;
};
SchemaParts split_schema(std::string_view text);

std::string replace_all(std::string text, std::string_view from, std::string_view to);

}  // namespace rocpd_gen
