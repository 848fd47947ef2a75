// Which JSON files of a directory are traces (defined in json_sniff.cpp): a directory's other JSON
// (a tool's settings, a summary, a list) is passed over, not converted.
#pragma once
#include <string>

namespace rocpd::members {

// What the start of a JSON file says it is: a Chrome-trace document (PyTorch profiler / Kineto)
// is an array whose first element is an event object, or an object with a traceEvents array
// (found within its first 64 MiB). Read with RapidJSON, only as far as needed; never throws.
struct JsonSniff {
  bool trace = false;
  bool empty_array = false;  // `[]`: the array form without a single event
  std::string why;           // when not a trace: what it is instead
};
JsonSniff sniff_json_trace_file(const std::string& path);

}  // namespace rocpd::members
