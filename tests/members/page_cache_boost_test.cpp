// PageCacheBoost (members/page_cache_boost.h): a member's private connection gets the larger cache
// while a computation reads it and its own size and no cached page afterwards; a connection that
// is the user's (attached member) or already has a larger cache is left as it is.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "members/page_cache_boost.h"
#include "real_sqlite_api.h"

const sqlite3_api_routines* sqlite3_api = nullptr;

namespace rocpd::members {
namespace {

class PageCacheBoostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sqlite3_api = real_sqlite_api();
    ASSERT_NE(sqlite3_api, nullptr);
    path_ = (std::filesystem::temp_directory_path() /
             ("page_cache_boost_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".db"))
                .string();
    std::filesystem::remove(path_);
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &raw), SQLITE_OK);
    db_.reset(raw);
    // 4 MB of rows: more pages than SQLite's default cache (2,000 KiB) holds.
    exec(db_.get(),
         "CREATE TABLE t(x); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000) "
         "INSERT INTO t SELECT randomblob(1000) FROM n;");
    member_.attached = false;
    member_.schema = "main";
  }
  void TearDown() override {
    db_.reset();
    std::filesystem::remove(path_);
  }
  int64_t cache_size() {
    Stmt s = prepare(db_.get(), "PRAGMA main.cache_size");
    EXPECT_TRUE(step(s.get()));
    return sqlite3_column_int64(s.get(), 0);
  }
  int cache_used() {
    int used = 0, high = 0;
    sqlite3_db_status(db_.get(), SQLITE_DBSTATUS_CACHE_USED, &used, &high, 0);
    return used;
  }
  void read_all() {
    Stmt s = prepare(db_.get(), "SELECT sum(length(x)) FROM t");
    EXPECT_TRUE(step(s.get()));
  }
  std::string path_;
  Db db_;
  canonical::Member member_;
};

TEST_F(PageCacheBoostTest, PrivateConnectionGrowsThenGetsItsSizeBackAndNoPageKept) {
  exec(db_.get(), "PRAGMA cache_size = -2000");
  {
    const PageCacheBoost boost(member_, db_.get(), 64 * 1024);
    EXPECT_EQ(cache_size(), -64 * 1024);
    read_all();
    // Every page of the table stayed (4,000 rows of 1,000 bytes), more than 2,000 KiB.
    EXPECT_GT(cache_used(), 3'000'000);
  }
  EXPECT_EQ(cache_size(), -2000);
  EXPECT_LT(cache_used(), 100'000);
}

TEST_F(PageCacheBoostTest, ASizeInPagesIsRestoredAsPages) {
  exec(db_.get(), "PRAGMA cache_size = 100");
  {
    const PageCacheBoost boost(member_, db_.get(), 8 * 1024);
    EXPECT_EQ(cache_size(), -8 * 1024);
  }
  EXPECT_EQ(cache_size(), 100);
}

TEST_F(PageCacheBoostTest, AttachedMemberIsTheUsersConnectionAndStaysAsItIs) {
  exec(db_.get(), "PRAGMA cache_size = -2000");
  member_.attached = true;
  {
    const PageCacheBoost boost(member_, db_.get(), 64 * 1024);
    EXPECT_EQ(cache_size(), -2000);
    read_all();
  }
  EXPECT_EQ(cache_size(), -2000);
  EXPECT_GT(cache_used(), 1'000'000);  // its cached pages are its own business: none released
}

TEST_F(PageCacheBoostTest, ALargerCacheStays) {
  exec(db_.get(), "PRAGMA cache_size = -200000");
  {
    const PageCacheBoost boost(member_, db_.get(), 64 * 1024);
    EXPECT_EQ(cache_size(), -200000);
    read_all();
  }
  EXPECT_EQ(cache_size(), -200000);
  EXPECT_GT(cache_used(), 3'000'000);
}

}  // namespace
}  // namespace rocpd::members
