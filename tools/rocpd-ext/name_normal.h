// The name a kernel, API call or range is paired and grouped by across runs and members
// (docs/cli.md, "Names"): the counters and digests that differ between runs of one program are
// taken out, so that `compare` pairs `gemm~7f61fe` with `gemm~fe6a69` and `summary` counts
// `aten::to, op_id = 12` and `aten::to, op_id = 13` as one name.
#pragma once
#include <string>
#include <string_view>

namespace rocpd_cli {

// `name` without: a trailing display-name digest (`~` and 6 hex digits, rocpd_display_name), a
// trailing `_v` + digits API version suffix (`cudaLaunchKernel_v7000`), and every `op_id = N`,
// `seq = N`, `seq_nr = N`, `sequence = N` counter with the comma or space before it.
std::string normal_name(std::string_view name);

}  // namespace rocpd_cli
