// rpd (rocmProfileData) schema 2 and 3: see rpd.cpp.
#pragma once
#include "formats/adapter.h"

namespace rocpd::federation {

struct RpdDetails : FormatDetails {
  bool has_api_domain = false;  // v3: rocpd_api.domain_id/category_id
  bool has_ustring = false;     // v3: argument strings live in rocpd_ustring
  bool has_api_ops = false;     // op -> issuing API link table present
};

const FormatAdapter& rpd_adapter();

}  // namespace rocpd::federation
