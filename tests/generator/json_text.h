// JSON string literals (quotes and escapes) for the small documents the generator writes.
#pragma once

#include <string>
#include <string_view>

namespace rocpd_gen {

std::string json_string(std::string_view text);

}  // namespace rocpd_gen
