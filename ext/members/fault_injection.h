// Faults the tests inject through the environment: ROCPD_FAULT holds the names of the faults to
// simulate (e.g. "thread_start": starting a reader or probing thread fails as when the system has
// no threads left), so that the fallback paths run in CI.
#pragma once
#include <cstdlib>
#include <cstring>

namespace rocpd::members {

inline bool fault_injected(const char* name) {
  const char* f = std::getenv("ROCPD_FAULT");
  return f && std::strstr(f, name);
}

}  // namespace rocpd::members
