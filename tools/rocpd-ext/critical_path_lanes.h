// The html summary's critical path chart: the slowest job step's path (the segments the
// critical_path section read into temp.cli_critical_path) as a lane chart in inline SVG, one lane
// per member thread or GPU queue, each segment a rect coloured by its kind.
#pragma once
#include <ostream>

#include "session.h"

namespace rocpd_cli {

// The kinds of rocpd_critical_path and their colours (none is a heatmap or kernel-bar colour but
// idle_gap's grey).
inline constexpr const char* kPathKinds[9] = {"cpu_op", "launch",          "kernel",   "copy",       "sync_wait",
                                              "gpu_wait", "stream_wait", "collective_wait", "idle_gap"};
inline constexpr const char* kPathColors[9] = {"#7b3294", "#c2a5cf", "#d7191c", "#a6611a", "#dfc27d",
                                               "#1b7837", "#5aae61", "#e7298a", "#bdbdbd"};

// Draws nothing when the job has no step. A segment's lane: its member and thread when it has a
// thread (CPU segments and launches), else its member, GPU, queue and stream, else its member
// alone. Every GPU lane the path runs through is drawn, first, then threads up to `max_lanes` lanes
// in all (in order of first use); a note says how many segments were left out.
void write_critical_path_svg(std::ostream& out, Session& session, long long max_lanes);

}  // namespace rocpd_cli
