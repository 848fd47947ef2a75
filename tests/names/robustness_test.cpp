// Inputs a trace should not contain but may: broken manglings, huge names, invalid UTF-8,
// embedded NULs, deep nesting, and "demangling bombs" whose output is exponential.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "corpus_io.h"
#include "names/demangle.h"
#include "names/demangle_backend.h"

namespace names = rocpd::names;

namespace {
// The stack and output guards are LLVM's; the __cxa_demangle fallback has its own limits.
bool llvm_backend() { return std::string_view(names::demangler_backend()) != "cxa"; }
}  // namespace
using names::demangle;
using names::kernel_short_name;

TEST(NamesRobustness, BrokenManglingsComeBackUnchanged) {
  const std::string cases[] = {"_Z", "_Z3fo", "_Zfoo", "_Z3foo@", "_Z999999999999999999999foo", "_ZN3foo", "_ZSt",
                          "_Z1fIiEvT_T0_", "_Z\xff\xfe\xfd", std::string("_Z3f\0o", 6),
                          "_Z3foovgarbage garbage", "_Z1fI" + std::string(100, 'I')};
  for (const std::string& bad : cases) {
    EXPECT_EQ(demangle(bad), bad) << bad;
    EXPECT_EQ(kernel_short_name(bad), bad) << bad;
  }
}

TEST(NamesRobustness, TruncationsOfEveryCorpusName) {
  // Every prefix of a valid mangling is either a valid mangling itself (then demangle agrees
  // with the plain library) or comes back unchanged.
  std::size_t unchanged = 0, total = 0;
  for (const auto& row : load_corpus()) {
    if (row.mangled.size() > 600) continue;  // the long ones are covered by the fuzz loop below
    for (std::size_t len = 2; len < row.mangled.size(); len += 3) {
      std::string prefix = row.mangled.substr(0, len);
      std::string out = demangle(prefix);
      ++total;
      if (out == prefix) {
        ++unchanged;
      } else if (auto library = names::detail::demangle_itanium(prefix)) {
        EXPECT_EQ(out, *library) << prefix;
      }
      (void)kernel_short_name(prefix);
    }
  }
  EXPECT_GT(unchanged, total / 2);
}

TEST(NamesRobustness, RandomBytesAfterZ) {
  std::mt19937_64 rng(42);
  const std::string alphabet = "_ZNISETKPRVLXJFvifdcbjlmy0123456789Dpa\xff.$ ";
  for (int i = 0; i < 20000; ++i) {
    std::string s = "_Z";
    std::size_t len = rng() % 40;
    for (std::size_t k = 0; k < len; ++k) s += alphabet[rng() % alphabet.size()];
    std::string d = demangle(s);
    std::string k = kernel_short_name(s);
    EXPECT_FALSE(d.empty() && !s.empty()) << s;
    (void)k;
  }
}

TEST(NamesRobustness, HundredKilobyteInputsComeBackUnchanged) {
  const std::string deep = "_Z1f" + std::string(100 * 1024, 'P') + "i";
  const std::string wide = "_Z1fI" + std::string(100 * 1024, 'i') + "Evv";
  const std::string text(100 * 1024, 'x');
  for (const std::string& s : {deep, wide, text}) {
    EXPECT_EQ(demangle(s), s);
    EXPECT_EQ(kernel_short_name(s), s);
  }
}

TEST(NamesRobustness, DeepNestingBelowTheCapIsDemangledOnABigStack) {
  // 60000 nested pointer levels: overflows an 8 MB stack in llvm::itaniumDemangle.
  const std::string deep = "_Z1f" + std::string(60000, 'P') + "i";
  const std::string out = demangle(deep);
  if (!llvm_backend()) GTEST_SKIP() << "__cxa_demangle fallback: no crash on 60000 levels is all that is checked";
  EXPECT_EQ(out, "f(int" + std::string(60000, '*') + ")");
  EXPECT_EQ(kernel_short_name(deep), "f");
  std::string nested = "_Z1f";
  for (int i = 0; i < 8000; ++i) nested += "I1A";
  nested += "i" + std::string(8000, 'E') + "vv";
  ASSERT_LT(nested.size(), names::kMaxDemangleInput);
  EXPECT_TRUE(demangle(nested).starts_with("void f<A<A<A<"));
  // 20000 nested function pointer types and 30000 nested negations, about 60 kB each.
  std::string functions = "_Z1f";
  for (int i = 0; i < 20000; ++i) functions += "PF";
  functions += "v" + std::string(20000, 'E');
  EXPECT_TRUE(demangle(functions).starts_with("f(void (* (* (*"));
  std::string negations = "_Z1fIX";
  for (int i = 0; i < 30000; ++i) negations += "ng";
  negations += "Li1EEEvv";
  EXPECT_TRUE(demangle(negations).starts_with("void f<-(-(-("));
}

TEST(NamesRobustness, DemanglingBombsAreRefused) {
  // Each template argument is a function pointer taking the previous one twice: the output
  // doubles per argument (30 arguments would print about 10 GB and abort in realloc).
  for (int n : {30, 60}) {
    std::string s = "_Z1fIPFvvE";
    for (int k = 1; k < n; ++k) {
      std::string ref = k == 1 ? "T_" : "T" + std::to_string(k - 2) + "_";
      s += "PFv" + ref + ref + "E";
    }
    s += "Evv";
    EXPECT_EQ(demangle(s), s);
    EXPECT_EQ(kernel_short_name(s), s);
  }
  // A pack expansion prints its pattern once per element: 5000 ints times a 5000-byte pattern
  // would print 25 MB from a 10 kB name.
  const std::string pattern_name(5000, 'x');
  const std::string pack_bomb =
      "_Z1fIJ" + std::string(5000, 'i') + "EEvDpPFv" + std::to_string(pattern_name.size()) + pattern_name + "T_E";
  if (llvm_backend()) {
    EXPECT_EQ(demangle(pack_bomb), pack_bomb);
  }
  // Ordinary packs are expanded.
  EXPECT_EQ(demangle("_ZN5fused12fused_kernelIJfiEEEviDpT_"), "void fused::fused_kernel<float, int>(int, float, int)");
  // A small one still demangles.
  if (llvm_backend()) {
    EXPECT_EQ(demangle("_Z1fIPFvvEPFvT_T_EEvv"), "void f<void (*)(), void (*)(void (*)(), void (*)())>()");
  }
}

TEST(NamesRobustness, InvalidUtf8AndNulsPassThrough) {
  const std::string bytes[] = {"\xc3\x28", "kernel_\xff\xfe", std::string("a\0b", 3), "\xed\xa0\x80", "(\xff)"};
  for (const auto& s : bytes) {
    EXPECT_EQ(demangle(s), s);
    (void)kernel_short_name(s);
  }
  // Invalid UTF-8 inside an otherwise valid identifier is demangled byte for byte.
  EXPECT_EQ(demangle("_Z3f\xff\xfev"), "f\xff\xfe()");
}
