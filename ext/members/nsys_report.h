// Nsight Systems reports (.nsys-rep, and .qdrep before 2021.3) are nsys's own container, not an
// SQLite database: recognised by their first bytes, refused with the export command to run, or,
// when the user opts in (ROCPD_NSYS_EXPORT=1) and `nsys` is on PATH, exported by nsys itself into
// a private temporary database the member reads (nothing is written beside the report).
// The conversion is one small hook; a cache of converted members can wrap it.
#pragma once
#include <memory>
#include <string>

#include "members/interrupt.h"
#include "members/member_convert.h"

namespace rocpd::federation {

// The file starts as every Nsight Systems report does ("NVIDIA Tegra Profiler Report").
bool is_nsys_report_file(const std::string& path);
// The name says report: *.nsys-rep or *.qdrep (a directory's candidates).
bool is_nsys_report_path(const std::string& path);

// "<who>: an Nsight Systems report, not an SQLite database: export it first, `nsys export ...`".
std::string nsys_report_message(const std::string& path, const std::string& who);

// Whether rocpd_open exports reports itself: ROCPD_NSYS_EXPORT=1 in the environment.
bool nsys_export_enabled();

// Runs `nsys export --type sqlite --force-overwrite true --output <tmp> <path>` (nsys found on PATH,
// no shell) into a new private file in conversion_directory(), removed when the member goes.
// Errors name `who`; stops (killing nsys) when `watch` says so.
std::shared_ptr<ConvertedTrace> export_nsys_report(const std::string& path, const std::string& who,
                                                   InterruptWatch* watch);

}  // namespace rocpd::federation
