// A length of time in nanoseconds as people read it, the one form the CLI's tables and the
// findings' figures share: under 1 us in ns (whole, or one decimal), then us and ms with two
// decimals and s with three, thousands separated by commas ("58.86 ms", "1,234.500 s").
#pragma once
#include <string>

namespace rocpd {

// `v` with `decimals` decimals and commas between the thousands of its integer part; a value
// that rounds to zero is not negative ("0.00", never "-0.00").
std::string grouped_decimal(double v, int decimals);

// `ns` (finite) in the unit that keeps it short.
std::string duration_text(double ns);

}  // namespace rocpd
