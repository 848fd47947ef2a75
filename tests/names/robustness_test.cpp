// Inputs a trace should not contain but may: broken manglings, huge names, invalid UTF-8,
// embedded NULs, deep nesting, and "demangling bombs" whose output is exponential.
#include <gtest/gtest.h>
#include <pthread.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

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

TEST(NamesRobustness, EmptyNodeArrayAsTheFirstAllocation) {
  // The closure type "_ZUlvE_" makes its empty parameter list before any node: a zero-size
  // request to a fresh arena, which returned a pointer into a block that did not exist.
  for (const char* name : {"_ZUlvE_", "_ZUlvE0_", "_ZN1AUlvE_E", "_ZUliE_"}) {
    (void)demangle(name);
    (void)kernel_short_name(name);
  }
  if (!llvm_backend()) GTEST_SKIP() << "__cxa_demangle fallback: only the absence of a crash is checked";
  // llvm-cxxfilt-19's output; the short name by rule 3 (the first lambda, GNU's numbering).
  EXPECT_EQ(demangle("_ZUlvE_"), "'lambda'()");
  EXPECT_EQ(demangle("_ZN1AUlvE_E"), "A::'lambda'()");
  EXPECT_EQ(kernel_short_name("_ZUlvE_"), "{lambda#1}");
}

namespace {
// Runs `body` on a thread whose stack is `bytes` large, as a host application's worker may be.
template <class F>
void on_small_stack(std::size_t bytes, F body) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, bytes), 0);
  pthread_t thread;
  ASSERT_EQ(pthread_create(
                &thread, &attr, [](void* f) -> void* { (*static_cast<F*>(f))(); return nullptr; }, &body),
            0);
  pthread_attr_destroy(&attr);
  pthread_join(thread, nullptr);
}
}  // namespace

TEST(NamesRobustness, DeepNamesOnACallerWithASmallStack) {
  // The parser recurses once per nesting level: 2000 levels take more than 256 KiB of stack, so
  // they must not be parsed on such a caller's stack.
  std::vector<std::pair<std::string, std::string>> got;  // (input, output)
  on_small_stack(256 * 1024, [&] {
    for (int depth : {500, 2000, 4000}) {
      const std::string pointers = "_Z1f" + std::string(depth, 'P') + "i";
      got.emplace_back(pointers, demangle(pointers));
      std::string functions = "_Z1f";
      for (int i = 0; i < depth / 2; ++i) functions += "PF";
      functions += "v" + std::string(depth / 2, 'E');
      got.emplace_back(functions, demangle(functions));
      got.emplace_back(pointers, kernel_short_name(pointers));
    }
  });
  ASSERT_EQ(got.size(), 9u);
  if (!llvm_backend()) GTEST_SKIP() << "__cxa_demangle fallback: only the absence of a crash is checked";
  EXPECT_EQ(got[3].second, "f(int" + std::string(2000, '*') + ")");
  EXPECT_TRUE(got[4].second.starts_with("f(void (* (* (*")) << got[4].second.substr(0, 40);
  EXPECT_EQ(got[5].second, "f");
  EXPECT_EQ(got[6].second, "f(int" + std::string(4000, '*') + ")");
}

TEST(NamesRobustness, DeclarationsAboveTheShortNameCapAreNotRead) {
  // kernel_short_name holds 17 bytes per input byte: 10 MB of text is returned, not read.
  const std::string declaration = "void f<" + std::string(10'000'000, 'i') + ">(int)";
  EXPECT_EQ(kernel_short_name(declaration), declaration);
  EXPECT_EQ(kernel_short_name(declaration + ".kd"), declaration);
  const std::string below = "void f<" + std::string(names::kMaxShortNameInput - 100, 'i') + ">(int)";
  EXPECT_EQ(kernel_short_name(below), "f");
}
