// The committed corpus against LLVM 19's llvm-cxxfilt output, and the short-name rules
// against LLVM's partial demangler (an independent reading of the same mangled names).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string_view>

#include "corpus_io.h"
#include "names/demangle.h"
#include "names/demangle_backend.h"

#if ROCPD_HAVE_LLVM_DEMANGLE
#include <llvm/Demangle/Demangle.h>
#endif

namespace names = rocpd::names;

namespace {

// demangle() drops the kernel-descriptor suffix that llvm-cxxfilt prints as " (.kd)".
std::string expected_demangle(const CorpusRow& row) {
  std::string_view e = row.expected;
  if (std::string_view(row.mangled).ends_with(".kd") && e.ends_with(" (.kd)")) e.remove_suffix(6);
  return std::string(e);
}

}  // namespace

TEST(NamesCorpus, SizeAndCoverage) {
  auto rows = load_corpus();
  EXPECT_GE(rows.size(), 300u);
  std::size_t tn = 0, lambdas = 0, anonymous = 0, abi = 0, long_names = 0, gnu_fails = 0, suffixed = 0;
  for (const auto& r : rows) {
    tn += r.mangled.find("Tn") != std::string::npos && !r.gnu_demangles;
    lambdas += r.expected.find("'lambda") != std::string::npos;
    anonymous += r.expected.find("(anonymous namespace)") != std::string::npos;
    abi += r.expected.find("[abi:") != std::string::npos;
    long_names += r.mangled.size() > 2048;
    gnu_fails += !r.gnu_demangles;
    suffixed += r.expected.ends_with(")") && r.expected.find(" (.") != std::string::npos;
  }
  EXPECT_GE(tn, 50u) << "C++20 Tn manglings that GNU c++filt cannot demangle";
  EXPECT_GE(lambdas, 20u);
  EXPECT_GE(anonymous, 5u);
  EXPECT_GE(abi, 5u);
  EXPECT_GE(long_names, 3u) << "names long enough for the helper-thread path";
  EXPECT_GE(suffixed, 50u);
  std::printf("corpus: %zu names, %zu Tn, %zu lambdas, %zu anonymous, %zu ABI tags, %zu > 2 kB, %zu that GNU c++filt "
              "cannot demangle, %zu with clone suffixes\n",
              rows.size(), tn, lambdas, anonymous, abi, long_names, gnu_fails, suffixed);
}

TEST(NamesCorpus, BackendIsTheConfiguredOne) {
  // Says which backend this build uses; CMake passes what it found.
  EXPECT_STREQ(names::demangler_backend(), ROCPD_EXPECT_DEMANGLER);
  std::printf("demangler backend: %s\n", names::demangler_backend());
}

TEST(NamesCorpus, DemangleMatchesLlvmCxxfilt) {
  if (std::string_view(names::demangler_backend()) == "cxa") {
    GTEST_SKIP() << "built with the __cxa_demangle fallback: llvm-cxxfilt-19 output is not expected";
  }
  for (const auto& row : load_corpus()) {
    EXPECT_EQ(names::demangle(row.mangled), expected_demangle(row)) << row.mangled;
  }
}

TEST(NamesCorpus, CxaFallbackAgreesWhereGnuDemangles) {
  // The fallback must at least demangle what GNU c++filt demangles (formatting may differ).
  std::size_t ok = 0, total = 0;
  for (const auto& row : load_corpus()) {
    if (!row.gnu_demangles) continue;
    ++total;
    if (names::detail::demangle_with_cxa(row.mangled).has_value()) {
      ++ok;
    } else {
      // GCC 12's runtime predates _Float16 (DF16_), which binutils' c++filt already knows.
      EXPECT_NE(row.mangled.find("DF16_"), std::string::npos) << row.mangled;
    }
  }
  EXPECT_GE(ok, total * 99 / 100);
}

TEST(NamesCorpus, GuardedParserPrintsWhatTheLlvmLibraryPrints) {
#if ROCPD_HAVE_LLVM_DEMANGLE
  for (const auto& row : load_corpus()) {
    auto library = names::detail::demangle_with_llvm_library(row.mangled);
    auto guarded = names::detail::demangle_itanium(row.mangled);
    ASSERT_TRUE(library.has_value()) << row.mangled;
    EXPECT_EQ(guarded, library) << row.mangled;
  }
#else
  GTEST_SKIP() << "LLVM not compiled in";
#endif
}

TEST(NamesCorpus, ShortNameSameForMangledAndDemangled) {
  for (const auto& row : load_corpus()) {
    if (names::demangle(row.mangled) == row.mangled) {
      // Only the __cxa_demangle fallback leaves corpus names mangled (C++20, very long names).
      EXPECT_STREQ(names::demangler_backend(), "cxa") << row.mangled;
      continue;
    }
    EXPECT_EQ(names::kernel_short_name(row.mangled), names::kernel_short_name(row.expected)) << row.mangled;
  }
}

#if ROCPD_HAVE_LLVM_DEMANGLE
TEST(NamesCorpus, ShortNameIsLlvmFunctionBaseName) {
  // For plain functions the short name is exactly the base name LLVM's AST reports; the
  // documented exceptions (operators, lambdas) are checked by ShortName tests.
  std::size_t compared = 0;
  for (const auto& row : load_corpus()) {
    llvm::ItaniumPartialDemangler partial;
    const std::string& mangled = row.mangled;
    // The partial demangler does not accept clone suffixes; compare on the plain names.
    if (mangled.find('.') != std::string::npos) continue;
    ASSERT_FALSE(partial.partialDemangle(mangled.c_str())) << mangled;
    if (!partial.isFunction()) continue;
    std::size_t n = 0;
    char* base = partial.getFunctionBaseName(nullptr, &n);
    ASSERT_NE(base, nullptr);
    std::string expected(base);
    std::free(base);
    std::string short_name = names::kernel_short_name(mangled);
    if (expected.starts_with("operator") || row.expected.find("{lambda") != std::string::npos) {
      EXPECT_TRUE(short_name.ends_with(expected) || short_name.find("{lambda#") != std::string::npos)
          << mangled << " -> " << short_name;
      continue;
    }
    EXPECT_EQ(short_name, expected) << row.expected;
    ++compared;
  }
  EXPECT_GE(compared, 300u);
}
#endif
