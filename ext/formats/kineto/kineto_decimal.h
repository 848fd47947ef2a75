// Exact conversion of JSON number text into integers: Kineto writes times as microseconds with
// three decimals ("4203669604595.407"), which a double cannot hold to the nanosecond once the
// absolute time passes 2^53 ns, so times are read from the number's text, never through a double.
#pragma once
#include <cstdint>
#include <string_view>

namespace rocpd::formats::kineto {

enum class NumberStatus { Ok, Overflow, NotInteger, Malformed };

// `text` (JSON number syntax: optional '-', digits, optional fraction and exponent) times
// 10^`scale`, rounded to the nearest integer (halves away from zero) when `round` is set;
// otherwise a value with a fractional part is NotInteger. Overflow when outside int64.
NumberStatus decimal_to_int64(std::string_view text, int scale, bool round, int64_t& out);

// Microseconds as written -> nanoseconds (scale 3, rounded past the third decimal).
inline NumberStatus micros_to_ns(std::string_view text, int64_t& ns) { return decimal_to_int64(text, 3, true, ns); }
// An integer field ("correlation": 1234, "grid": [2, 1, 1]); integral values such as 68.0 count.
inline NumberStatus integer_value(std::string_view text, int64_t& v) { return decimal_to_int64(text, 0, false, v); }

}  // namespace rocpd::formats::kineto
