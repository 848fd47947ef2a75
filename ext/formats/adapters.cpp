// The list of format adapters: adding a format is one more line here (and its file).
#include "formats/adapter.h"
#include "formats/kineto/kineto.h"
#include "formats/nsys/nsys.h"
#include "formats/rocpd.h"
#include "formats/rpd.h"

namespace rocpd::formats {

const std::vector<const FormatAdapter*>& format_adapters() {
  // rocprofv3 files are recognised by their uuid-suffixed metadata first: a catalog holding both
  // rocpd_metadata_<uuid> and an rpd table is a rocprofv3 file with extra tables.
  static const std::vector<const FormatAdapter*> adapters = {&rocpd_adapter(), &rpd_adapter(), &nsys_adapter(),
                                                             &kineto_adapter()};
  return adapters;
}

}  // namespace rocpd::formats
