// The one way a fuzz target reports a wrong answer: abort, which libFuzzer (and the replay
// driver's CTest run) reports as a crash together with the input.
#pragma once

namespace rocpd::fuzz {

// Prints `what` and aborts when `ok` is false.
void fuzz_check(bool ok, const char* what);

}  // namespace rocpd::fuzz
