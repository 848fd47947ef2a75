// rocpd_display_name(): the short form of a kernel name that summaries show (docs/names.md,
// "Display names"). A pure function of its input; no SQLite here, so unit tests link it directly.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rocpd::names {

// Display names are at most this many bytes (multi-byte UTF-8 characters are never split): the
// width at which the sqlite3 shell's box and table modes wrap a cell by default.
inline constexpr std::size_t kDisplayNameMax = 60;
// Hex digits of the digest that marks a display name which left parts of the name out.
inline constexpr std::size_t kDisplayDigestDigits = 6;

// The display form of a kernel name:
//  - Tensile / hipBLASLt solution names ("Cijk_Ailk_Bljk_SB_MT128x64x16_MI32x32x2x1_SN_..."): the
//    problem type (indices and data types, then as many of its flags as fit), the macro tile and
//    the matrix instruction, then "~" and a digest of the whole name standing for what was left out;
//  - C++ names (mangled or demangled): the base name with its compacted template arguments
//    (namespace qualifiers and spaces removed), without return type and parameters;
//  - anything else: the name without its kernel-descriptor suffix.
// A PyTorch operator's range name ("aten::addmm, seq = 12, op_id = 317177, sizes = ...") is shown
// as its operator's (the text before ", seq = N" / ", op_id = N"), then by the rules above.
// A result longer than kDisplayNameMax is cut and ends with "~" and the digest.
std::string display_name(std::string_view name);

// The same through a process-wide bounded cache (see demangle_cached).
std::string display_name_cached(std::string_view name);

// The digest of a name (display_name hashes the demangled name without its descriptor suffix):
// the low 24 bits of the 64-bit FNV-1a hash of its bytes, as 6 lowercase hex digits ("~" not
// included).
std::string display_digest(std::string_view name);

}  // namespace rocpd::names
