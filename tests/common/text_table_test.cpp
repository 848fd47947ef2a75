// The shared table layout (common/text_table.h) against the rule written out by hand.
#include "common/text_table.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

TEST(TextTable, LayoutAlignsAndPadsAsDocumented) {
  const rocpd::TextTable t({"name", "n"}, {{"a", "1"}, {"long name", "12345"}}, {false, true});
  std::string out;
  t.head(out);
  t.line(out, {"a", "1"});
  t.line(out, {"longer than sized", "123456789"});  // widens its own line only
  EXPECT_EQ(out,
            "name           n\n"
            "---------  -----\n"
            "a              1\n"
            "longer than sized  123456789\n");
}

TEST(TextTable, LastLeftAlignedColumnIsNotPadded) {
  const rocpd::TextTable t({"n", "text"}, {{"1", "é"}, {"22", "abcdef"}}, {true, false});
  std::string out;
  t.head(out);
  t.line(out, {"1", "é"});
  EXPECT_EQ(out, " n  text\n--  ------\n 1  é\n");
}

TEST(TextTable, WidthCountsCodePoints) {
  EXPECT_EQ(rocpd::display_width("abc"), 3u);
  EXPECT_EQ(rocpd::display_width("é€😀"), 3u);
}

TEST(TextTable, CutToWidth) {
  EXPECT_EQ(rocpd::cut_to_width("abcdef", 6), "abcdef");
  EXPECT_EQ(rocpd::cut_to_width("abcdefg", 6), "abc...");
  EXPECT_EQ(rocpd::cut_to_width("ééééééé", 6), "ééé...");
  EXPECT_EQ(rocpd::cut_to_width("éééééé", 6), "éééééé");
  EXPECT_EQ(rocpd::cut_to_width("", 3), "");
}

TEST(TextTable, CellText) {
  EXPECT_EQ(rocpd::cell_text(SQLITE_NULL, nullptr, 0), "");
  const unsigned char blob[] = {0x00, 0xff, 0x1a};
  EXPECT_EQ(rocpd::cell_text(SQLITE_BLOB, blob, 3), "00ff1a");
  EXPECT_EQ(rocpd::cell_text(SQLITE_TEXT, "a\0b", 3), std::string("a\0b", 3));
  EXPECT_EQ(rocpd::cell_text(SQLITE_INTEGER, "-12", 3), "-12");
}

TEST(TextTable, Alignment) {
  rocpd::Alignment numbers, mixed, nulls;
  for (int type : {SQLITE_NULL, SQLITE_INTEGER, SQLITE_FLOAT}) numbers.add(type);
  for (int type : {SQLITE_INTEGER, SQLITE_TEXT}) mixed.add(type);
  nulls.add(SQLITE_NULL);
  EXPECT_TRUE(numbers.right());
  EXPECT_FALSE(mixed.right());
  EXPECT_FALSE(nulls.right());
}

}  // namespace
