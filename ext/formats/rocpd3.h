// rocprofv3 rocpd schema 3.x: see rocpd3.cpp.
#pragma once
#include <string>

#include "formats/adapter.h"

namespace rocpd::federation {

struct RocpdDetails : FormatDetails {
  std::string suffix;               // "_<uuid with underscores>"
  bool has_marker_samples = false;  // rocpd_sample and rocpd_track present (instant marks)
};

const FormatAdapter& rocpd3_adapter();

}  // namespace rocpd::federation
