// ObjectKeys: a key repeated in one object is found whatever the object's size (linear search,
// then the hashed index), keys of other objects (nested, closed, siblings) never count, and the
// bound on key text holds.
#include "formats/kineto/kineto_object_keys.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

namespace rocpd::formats::kineto {
namespace {

using Add = ObjectKeys::Add;

TEST(KinetoObjectKeys, RepeatsInOneObjectOnly) {
  ObjectKeys keys(1 << 20);
  keys.open();
  EXPECT_EQ(keys.add("a"), Add::Ok);
  keys.open();  // nested: its own keys
  EXPECT_EQ(keys.add("a"), Add::Ok);
  EXPECT_EQ(keys.add("b"), Add::Ok);
  EXPECT_EQ(keys.add("b"), Add::Repeated);
  keys.close();
  EXPECT_EQ(keys.add("b"), Add::Ok);  // "b" was the nested object's
  EXPECT_EQ(keys.add("a"), Add::Repeated);
  keys.open();  // a sibling starts empty
  EXPECT_EQ(keys.add("b"), Add::Ok);
  keys.close();
  keys.close();
  keys.open();
  EXPECT_EQ(keys.add("a"), Add::Ok);
  EXPECT_EQ(keys.add(""), Add::Ok);
  EXPECT_EQ(keys.add(""), Add::Repeated);
  keys.close();
}

TEST(KinetoObjectKeys, AgainstASetAtEverySize) {
  std::mt19937 rng(3);
  ObjectKeys keys(64 << 20);
  for (int size : {1, 15, 16, 17, 40, 1000, 70000}) {
    keys.open();
    keys.open();  // an outer object's index is kept while an inner one fills and empties
    for (int i = 0; i < 50; ++i) ASSERT_EQ(keys.add("o" + std::to_string(i)), Add::Ok);
    keys.close();
    std::set<std::string> seen;
    for (int i = 0; i < size * 2; ++i) {
      const std::string k = "k" + std::to_string(rng() % static_cast<unsigned>(size + 1));
      ASSERT_EQ(keys.add(k), seen.insert(k).second ? Add::Ok : Add::Repeated) << size << " " << k;
    }
    keys.close();
  }
}

TEST(KinetoObjectKeys, BoundedKeyText) {
  ObjectKeys keys(100);
  keys.open();
  EXPECT_EQ(keys.add(std::string(60, 'a')), Add::Ok);
  EXPECT_EQ(keys.add(std::string(60, 'b')), Add::TooMany);
  keys.close();
  keys.open();  // closing gave the text back
  EXPECT_EQ(keys.add(std::string(60, 'b')), Add::Ok);
  keys.close();
}

}  // namespace
}  // namespace rocpd::formats::kineto
