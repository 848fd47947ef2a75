// Nsight Systems export schema generations (rocpd_gen --nsys-schema Y, docs/generator.md): an
// export written in the current layout (schema/nsys.sql, 3.25.0) is rewritten into the tables
// and columns the exports of an earlier year declare.
#pragma once

#include <cstdint>

#include "db.h"

namespace rocpd_gen {

// Rewrites the 3.25.0 export in `db` (inside its transaction) as Nsight Systems `year` writes it:
// 2021 (2021.5), 2022 (2.9.1), 2023 (3.4.0), 2025 (3.20.3); 2026 leaves it as it is. Exports before 2026 have
// no systemClockNs and count their times from the session start: every time moves by
// -`session_start` (the 3.25 file's systemClockNs), so each event keeps its UTC.
void write_nsys_generation(Db& db, int year, int64_t session_start);

}  // namespace rocpd_gen
