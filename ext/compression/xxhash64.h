// XXH64, the hash the zstd seekable format stores (low 32 bits) per frame in its seek table.
// Written from the published xxHash specification; libzstd does not export its copy.
#pragma once
#include <cstddef>
#include <cstdint>

namespace rocpd::zstd {

std::uint64_t xxhash64(const void* data, std::size_t size, std::uint64_t seed = 0) noexcept;

}  // namespace rocpd::zstd
