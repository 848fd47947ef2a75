#include "fuzz_check.h"

#include <cstdio>
#include <cstdlib>

namespace rocpd::fuzz {

void fuzz_check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant violated: %s\n", what);
  std::abort();
}

}  // namespace rocpd::fuzz
