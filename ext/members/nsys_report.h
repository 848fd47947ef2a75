// Nsight Systems reports (.nsys-rep, and .qdrep before 2021.3) are nsys's own container, not an
// SQLite database: recognised by their first bytes, refused with the export command to run, or,
// when the user opts in (ROCPD_NSYS_EXPORT=1) and `nsys` is on PATH, exported by nsys itself into
// the conversion cache (members/conversion_cache.h; the key holds the nsys program's identity), or
// a private temporary database when the cache is off (nothing is written beside the report).
#pragma once
#include <memory>
#include <string>

#include "members/interrupt.h"
#include "members/member_convert.h"

namespace rocpd::members {

// The file starts as every Nsight Systems report does ("NVIDIA Tegra Profiler Report").
bool is_nsys_report_file(const std::string& path);
// The name says report: *.nsys-rep or *.qdrep (a directory's candidates).
bool is_nsys_report_path(const std::string& path);

// "<who>: an Nsight Systems report, not an SQLite database: export it first, `nsys export ...`".
std::string nsys_report_message(const std::string& path, const std::string& who);

// Whether rocpd_open exports reports itself: ROCPD_NSYS_EXPORT=1 in the environment.
bool nsys_export_enabled();

// The cached export of the report `path`, or runs `nsys export --type sqlite --force-overwrite true
// --output <file> <path>` (nsys found on PATH, no shell) into the cache, else into a new private
// file in conversion_directory(); either is removed when the member goes. Errors name `who`; stops
// (killing nsys) when `watch` says so, and writes progress lines through it when `progress`.
ConvertedMember export_nsys_report(const std::string& path, const std::string& who, InterruptWatch* watch,
                                   bool progress = false);

}  // namespace rocpd::members
