// Units for the federation internals that need no SQLite connection: member query building
// (column pruning, join selection, pushdown, rowid ranges), file naming and path expansion.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "members/member_files.h"
#include "members/member_sql.h"
#include "formats/rocpd.h"
#include "formats/rpd.h"

// The extension reaches SQLite through this table; these units never call SQLite.
const sqlite3_api_routines* sqlite3_api = nullptr;

namespace rocpd::members {
namespace {

using namespace canonical;
using namespace formats;

std::unique_ptr<Member> rpd_member(int version) {
  auto owned = std::make_unique<Member>();
  Member& m = *owned;
  m.alias = "r0";
  m.schema = "r0";
  m.info.adapter = &rpd_adapter();
  m.info.schema_version = version;
  auto d = std::make_shared<RpdDetails>();
  d->has_api_ops = true;
  d->has_ustring = version == 3;
  d->has_api_domain = version == 3;
  m.info.details = d;
  return owned;
}

std::unique_ptr<Member> rocpd_member() {
  auto owned = std::make_unique<Member>();
  Member& m = *owned;
  m.alias = "p";
  m.schema = "main";
  m.info.adapter = &rocpd_adapter();
  m.info.schema_version = 3;
  auto d = std::make_shared<RocpdDetails>();
  RocpdProcess proc;
  proc.suffix = "_0199_abc";
  proc.has_marker_samples = true;
  d->processes.push_back(proc);
  m.info.details = d;
  return owned;
}

std::vector<SourceSql> op_sources(const Member& m, const Profile* p) { return sources_for(TableKind::Ops, m, p); }
std::vector<SourceSql> api_sources(const Member& m) { return sources_for(TableKind::Apis, m, nullptr); }

uint64_t bit(int c) { return uint64_t{1} << c; }

TEST(MemberQuery, CountNeedsNoColumnAndNoJoin) {
  const auto src = op_sources(*rpd_member(2), nullptr).at(0);
  const auto q = build_member_query(src, 0, {}, false);
  EXPECT_EQ(q.sql, "SELECT o.id FROM \"r0\".rocpd_op AS o");
}

TEST(MemberQuery, OnlyUsedColumnsAndTheirJoins) {
  const auto src = op_sources(*rpd_member(2), nullptr).at(0);
  const auto q = build_member_query(src, bit(kOpsDuration) | bit(kOpsGpu), {}, false);
  // A reversed op (end < start) lasts 0 ns, as every interval function counts it.
  EXPECT_EQ(q.sql, "SELECT o.id, o.gpuId, max(o.\"end\" - o.start, 0) FROM \"r0\".rocpd_op AS o");
  EXPECT_EQ(q.select_index[kOpsGpu], 1);
  EXPECT_EQ(q.select_index[kOpsDuration], 2);
  EXPECT_EQ(q.select_index[kOpsName], -1);
  const auto named = build_member_query(src, bit(kOpsName), {}, false);
  // Names are LEFT JOINed: an op whose name id dangles keeps its row, with a NULL name.
  EXPECT_NE(named.sql.find("LEFT JOIN \"r0\".rocpd_string AS t"), std::string::npos);
  EXPECT_NE(named.sql.find("LEFT JOIN \"r0\".rocpd_string AS d"), std::string::npos);
  EXPECT_EQ(named.sql.find("rocpd_api_ops"), std::string::npos);
}

TEST(MemberQuery, ConstraintsAndRowidRange) {
  const auto src = op_sources(*rpd_member(3), nullptr).at(0);
  const std::vector<PushedConstraint> pushed = {{kOpsStart, SQLITE_INDEX_CONSTRAINT_GE},
                                                {kOpsGpu, SQLITE_INDEX_CONSTRAINT_EQ},
                                                {kOpsName, SQLITE_INDEX_CONSTRAINT_EQ, Collation::NoCase}};
  const auto q = build_member_query(src, bit(kOpsStart), pushed, true);
  // The rowid always comes first: every row is numbered by it.
  EXPECT_EQ(q.sql,
            "SELECT o.id, o.start FROM \"r0\".rocpd_op AS o LEFT JOIN \"r0\".rocpd_string AS t ON t.id = o.opType_id "
            "LEFT JOIN \"r0\".rocpd_string AS d ON d.id = o.description_id WHERE o.start >= ?1 AND o.gpuId = ?2 AND "
            "CASE WHEN d.string <> '' THEN d.string WHEN d.string = '' THEN t.string END = ?3 COLLATE NOCASE AND "
            "o.id BETWEEN ?4 AND ?5");
  EXPECT_EQ(q.rowid_index, 0);
  EXPECT_EQ(q.select_index[kOpsStart], 1);
  EXPECT_EQ(q.rowid_param, 4);
}

TEST(MemberQuery, EqualExpressionsShareAResultColumnOnRequest) {
  // rpd's op_id is `o.id`, the rowid's expression: a reader that applies affinities itself
  // (MemberColumns) selects it once.
  const auto src = op_sources(*rpd_member(2), nullptr).at(0);
  ASSERT_EQ(src.expr[kOpsOpId], src.rowid);
  const auto apart = build_member_query(src, bit(kOpsOpId) | bit(kOpsStart), {}, false);
  EXPECT_NE(apart.select_index[kOpsOpId], apart.rowid_index);
  const auto shared = build_member_query(src, bit(kOpsOpId) | bit(kOpsStart), {}, false, 0, 0, true);
  EXPECT_EQ(shared.sql, "SELECT o.id, o.start FROM \"r0\".rocpd_op AS o");
  EXPECT_EQ(shared.select_index[kOpsOpId], shared.rowid_index);
  EXPECT_EQ(shared.select_index[kOpsStart], 1);
}

TEST(MemberQuery, SessionPidsFromTheProfile) {
  Profile p;
  p.session_pid = {{0, 100}, {1, 200}};
  const auto src = op_sources(*rpd_member(3), &p).at(0);
  EXPECT_EQ(src.expr[kOpsPid], "CASE (o.id >> 32) WHEN 0 THEN 100 WHEN 1 THEN 200 END");
  p.session_pid = {{0, 7}};
  EXPECT_EQ(op_sources(*rpd_member(3), &p).at(0).expr[kOpsPid], "7");
  // Without a profile the pid comes through the issuing API call.
  EXPECT_NE(op_sources(*rpd_member(3), nullptr).at(0).expr[kOpsPid].find("ao.api_id"), std::string::npos);
}

TEST(MemberQuery, RocpdSourcesAndJoinDependencies) {
  const auto owned = rocpd_member();
  const Member& m = *owned;
  const auto ops = op_sources(m, nullptr);
  ASSERT_EQ(ops.size(), 2u);  // kernel dispatches, memory copies
  EXPECT_EQ(ops[0].expr[kOpsKind], "'kernel'");
  EXPECT_EQ(ops[1].expr[kOpsKind], "'copy'");
  const auto apis = api_sources(m);
  ASSERT_EQ(apis.size(), 2u);  // regions, instant marks
  // The category join needs the event join first.
  const auto q = build_member_query(apis[0], bit(kApisCategory), {}, false);
  EXPECT_LT(q.sql.find("AS e ON"), q.sql.find("AS ct ON"));
  // Marks always carry their source filter: the adapter's marker test (rocprofiler-systems'
  // rocm_marker_api included).
  EXPECT_NE(build_member_query(apis[1], 0, {}, false)
                .sql.find("WHERE ((ct.string LIKE 'MARKER%' OR ct.string LIKE 'rocm\\_marker%' ESCAPE '\\'))"),
            std::string::npos);
}

TEST(MemberQuery, OnlyPushableOperators) {
  EXPECT_STREQ(constraint_sql_op(SQLITE_INDEX_CONSTRAINT_LIKE), "LIKE");
  EXPECT_EQ(constraint_sql_op(SQLITE_INDEX_CONSTRAINT_MATCH), nullptr);
  EXPECT_EQ(constraint_sql_op(SQLITE_INDEX_CONSTRAINT_ISNULL), nullptr);
}

TEST(MemberFiles, AliasStem) {
  EXPECT_EQ(alias_stem("run/rank7.db.zst"), "rank7");
  EXPECT_EQ(alias_stem("/a/b/1234_results.db"), "1234_results");
  EXPECT_EQ(alias_stem("noext"), "noext");
  EXPECT_EQ(alias_stem(".hidden"), ".hidden");
  EXPECT_TRUE(is_zstd_path("x.rpd.zst"));
  EXPECT_FALSE(is_zstd_path("x.rpd"));
}

TEST(MemberFiles, ExpandDirectoryAndGlob) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "rocpd_units_expand";
  fs::remove_all(dir);
  fs::create_directories(dir / "sub" / "deeper");
  for (const char* f : {"b.rpd", "a.db", "c.db.zst", "notes.txt", "sub/d.rpd", "sub/deeper/e.sqlite", "br[a].rpd"})
    std::ofstream(dir / f) << "x";
  fs::create_symlink("loop.rpd", dir / "loop.rpd");  // a symbolic link loop
  const auto listed = expand_pattern(dir.string());
  // Recursive, only trace-like names, sorted; the loop passed over with its reason.
  ASSERT_EQ(listed.files.size(), 6u);
  EXPECT_EQ(fs::path(listed.files[0]).filename(), "a.db");
  EXPECT_EQ(fs::path(listed.files[2]).filename(), "br[a].rpd");
  EXPECT_EQ(fs::path(listed.files[3]).filename(), "c.db.zst");
  EXPECT_EQ(fs::path(listed.files[5]).filename(), "e.sqlite");
  EXPECT_EQ(listed.base, dir.string());
  EXPECT_FALSE(listed.single);
  ASSERT_EQ(listed.skipped.size(), 1u);
  EXPECT_EQ(listed.skipped[0].path, (dir / "loop.rpd").string());
  EXPECT_NE(listed.skipped[0].reason.find("Too many levels of symbolic links"), std::string::npos);
  EXPECT_EQ(member_name(listed.files[5], listed.base), "sub/deeper/e");
  EXPECT_EQ(member_name(listed.files[0], listed.base), "a");
  EXPECT_EQ(member_name(listed.files[0], ""), "a");
  // A path that exists is a path, even with glob characters in its name.
  const auto bracket = expand_pattern((dir / "br[a].rpd").string());
  ASSERT_EQ(bracket.files.size(), 1u);
  EXPECT_TRUE(bracket.single);
  EXPECT_EQ(expand_pattern((dir / "*.txt").string()).files.size(), 1u);
  // A glob's matching directories are read like a directory; names are relative to the glob's base.
  const auto globbed = expand_pattern((dir / "s*").string());
  ASSERT_EQ(globbed.files.size(), 2u);
  EXPECT_EQ(member_name(globbed.files[0], globbed.base), "sub/d");
  EXPECT_EQ(member_name(globbed.files[1], globbed.base), "sub/deeper/e");
  EXPECT_THROW(expand_pattern((dir / "*.none").string()), Error);
  EXPECT_THROW(expand_pattern((dir / "missing.rpd").string()), Error);
  try {
    check_sqlite_file((dir / "b.rpd").string(), "who");
    FAIL() << "a one-byte file is not SQLite";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "who: not an SQLite database");
    EXPECT_EQ(e.code(), SQLITE_NOTADB);
  }
  fs::remove_all(dir);
}

TEST(MemberFiles, CanonicalPathsAgreeWithCanonicalPath) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "rocpd_units_canonical";
  fs::remove_all(dir);
  fs::create_directories(dir / "real" / "sub");
  std::ofstream(dir / "real" / "a.rpd") << "x";
  std::ofstream(dir / "real" / "sub" / "b.rpd") << "x";
  fs::create_directory_symlink(dir / "real", dir / "linked");       // a directory reached through a link
  fs::create_symlink(dir / "real" / "sub" / "b.rpd", dir / "real" / "c.rpd");  // a file that is a link
  const fs::path cwd = fs::current_path();
  fs::current_path(dir);
  CanonicalPaths paths;
  for (const std::string& p : {(dir / "real" / "a.rpd").string(), (dir / "linked" / "a.rpd").string(),
                              (dir / "real" / "sub" / ".." / "a.rpd").string(), (dir / "real" / "c.rpd").string(),
                              (dir / "linked" / "c.rpd").string(), std::string("real/a.rpd"),
                              std::string("linked/sub/b.rpd"), (dir / "real" / "missing.rpd").string(),
                              (dir / "real" / "sub" / "..").string(), std::string("real/"), std::string("/")}) {
    SCOPED_TRACE(p);
    EXPECT_EQ(paths.of(p), canonical_path(p));
    EXPECT_EQ(paths.of(p), canonical_path(p));  // the second time from the directory remembered
  }
  EXPECT_EQ(paths.of("linked/c.rpd"), (fs::canonical(dir) / "real" / "sub" / "b.rpd").string());
  fs::current_path(cwd);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rocpd::members
