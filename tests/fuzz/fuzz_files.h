// A private temporary directory per fuzzing process, removed at exit, where targets write
// their input as a file for the code under test to open.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace rocpd::fuzz {

// Writes `data` to `<private dir>/<name>` (replacing it) and returns the path.
std::string write_input_file(const std::string& name, const std::uint8_t* data, std::size_t size);

}  // namespace rocpd::fuzz
