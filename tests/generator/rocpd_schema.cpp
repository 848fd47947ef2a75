#include "rocpd_schema.h"

#include <stdexcept>

#include <fmt/format.h>

#include "schema_text.h"

namespace rocpd_gen {
namespace {

// Each edit must apply exactly as written: a changed schema file fails loudly instead of giving a
// silently different layout.
void replace_once(std::string& text, std::string_view from, std::string_view to) {
  const size_t pos = text.find(from);
  if (pos == std::string::npos || text.find(from, pos + 1) != std::string::npos)
    throw std::logic_error(fmt::format("rocpd_v3_0_5.sql: expected exactly one '{}'", from));
  text.replace(pos, from.size(), to);
}

// Removes every line containing `needle` (count lines expected).
void remove_lines(std::string& text, std::string_view needle, int count) {
  int removed = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos)) {
    const size_t begin = text.rfind('\n', pos) + 1;
    const size_t end = text.find('\n', pos);
    text.erase(begin, end == std::string::npos ? std::string::npos : end - begin + 1);
    pos = begin;
    ++removed;
  }
  if (removed != count)
    throw std::logic_error(fmt::format("rocpd_v3_0_5.sql: expected {} lines with '{}', found {}", count, needle, removed));
}

// Removes the statement starting with `head` up to and including the ';' that ends a line.
void remove_statement(std::string& text, std::string_view head) {
  const size_t begin = text.find(head);
  if (begin == std::string::npos) throw std::logic_error(fmt::format("rocpd_v3_0_5.sql: no '{}'", head));
  const size_t end = text.find(";\n", begin);
  text.erase(begin, end + 2 - begin);
}

std::string table_head(std::string_view name) { return fmt::format("CREATE TABLE IF NOT EXISTS \"{}_{{{{uuid}}}}\" (", name); }
std::string base_view(std::string_view name) {
  return fmt::format("CREATE VIEW IF NOT EXISTS \"{0}\" AS SELECT * FROM \"{0}_{{{{uuid}}}}\";", name);
}
std::string data_view(std::string_view name) { return fmt::format("CREATE VIEW IF NOT EXISTS \"{}\" AS", name); }

std::string revision(int patch) {
  std::string s(kRocpdV305Schema);
  if (patch < 5) {  // 3.0.5: replay_pass on dispatches, shader_array/wgp on SPM rows
    remove_lines(s, "\"replay_pass\"          INTEGER", 1);
    remove_lines(s, "\"shader_array\"  INTEGER", 1);
    remove_lines(s, "\"wgp\"           INTEGER", 1);
    replace_once(s, "PE.shader_array, PE.wgp, ", "");
  }
  if (patch < 4) {  // 3.0.4: HIP event barriers
    remove_statement(s, table_head("rocpd_hip_event"));
    remove_lines(s, base_view("rocpd_hip_event"), 1);
    remove_statement(s, data_view("hip_events"));
  } else {  // superseded by rocpd_hip_event: only some 3.0.1 .. 3.0.3 builds create it
    remove_statement(s, table_head("rocpd_event_operation"));
    remove_lines(s, base_view("rocpd_event_operation"), 1);
  }
  if (patch < 3) {  // 3.0.3: SPM
    remove_lines(s, "\"sample_id\"     INTEGER", 1);
    remove_lines(s, "\"xcc\"           INTEGER", 1);
    remove_lines(s, "\"shader_engine\" INTEGER", 1);
    remove_lines(s, "\"instance\"      INTEGER", 1);
    remove_lines(s, "\"spm_support\"      INTEGER", 1);
    replace_once(s,
                 "REFERENCES \"rocpd_event_{{uuid}}\" (id) ON UPDATE CASCADE,\n"
                 "    FOREIGN KEY (sample_id) REFERENCES \"rocpd_sample_{{uuid}}\" (id) ON UPDATE CASCADE\n",
                 "REFERENCES \"rocpd_event_{{uuid}}\" (id) ON UPDATE CASCADE\n");
    replace_once(s, "     WHERE PE.sample_id IS NULL\n", "");
    remove_statement(s, data_view("spm_counters"));
  }
  if (patch < 2) {  // 3.0.2: HIP graphs
    remove_statement(s, table_head("rocpd_graph_launch"));
    remove_lines(s, "INTEGER NOT NULL DEFAULT 0,", 4);  // graph_exec_id, graph_node_id of dispatches and copies
    remove_lines(s, base_view("rocpd_graph_launch"), 1);
    remove_statement(s, data_view("graph_launches"));
    remove_lines(s, "K.graph_exec_id, K.graph_node_id,", 1);
    remove_lines(s, "M.graph_exec_id, M.graph_node_id,", 1);
  }
  replace_once(s, "('schema_version', '3.0.5')", fmt::format("('schema_version', '3.0.{}')", patch));
  replace_once(s, "('schema_version_patch', '5')", fmt::format("('schema_version_patch', '{}')", patch));
  return s;
}

}  // namespace

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
  return text;
}

std::string rocpd_schema_template(const RocpdFeatures& f) {
  if (f.patch <= 0) return std::string(kRocpdV3Schema);
  return revision(f.patch);
}

std::string fill_placeholders(std::string text, std::string_view suffix, std::string_view guid) {
  return replace_all(replace_all(std::move(text), "{{uuid}}", suffix), "{{guid}}", guid);
}

SchemaParts split_schema(std::string_view text) {
  SchemaParts parts;
  const size_t divider = text.find("\n-- Unsuffixed views");
  if (divider == std::string_view::npos) throw std::logic_error("rocpd schema without '-- Unsuffixed views'");
  parts.tables = std::string(text.substr(0, divider + 1));
  size_t pos = divider + 1;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    // Base views: CREATE VIEW IF NOT EXISTS "rocpd_x" AS SELECT * FROM "rocpd_x_{{uuid}}";
    if (line.starts_with("CREATE VIEW IF NOT EXISTS \"rocpd_") && line.find("{{uuid}}") != std::string_view::npos) {
      const size_t q = line.find('"') + 1;
      parts.base_views.emplace_back(line.substr(q, line.find('"', q) - q));
    } else {
      parts.data_views.append(line).append("\n");
    }
    pos = end + 1;
  }
  return parts;
}

}  // namespace rocpd_gen
