// rocpd_gpu_screen's kernel_candidates: per gpu, the kernel groups (one name on the gpu, 5 or more
// timed instances) whose longest instance lies far enough above their median to hold a kernel
// outlier of rocpd_anomalies (docs/diagnosis.md), from the kernel rows the screen's launch-delay
// read sees (launch_delay_figures' KernelRow).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/ops_window.h"
#include "diagnosis/launch_delay_figures.h"

namespace rocpd::diagnosis {

class KernelCandidates {
 public:
  void add(const KernelRow& k);
  // A kernel whose gpu, name, start or end is not what the groups assume (an integer or NULL gpu,
  // a text or NULL name, integer times whose difference fits): the view then reads the member's
  // kernels through SQL.
  bool inexact() const { return inexact_; }
  // Per gpu, how many of its groups can hold an outlier.
  // Reorders the groups' durations (a median by selection).
  std::map<analysis::GpuKey, int64_t> per_gpu();

 private:
  struct Group {
    bool gpu_null = false;
    int64_t gpu = 0;
    std::string name;
    std::vector<int64_t> durations;
  };
  // (gpu, name token) -> group; a name without a token goes by its text.
  struct TokenKey {
    bool gpu_null;
    int64_t gpu, token;
    bool operator==(const TokenKey&) const = default;
  };
  struct TokenHash {
    size_t operator()(const TokenKey& k) const {
      return std::hash<int64_t>()(k.gpu) * 31 + std::hash<int64_t>()(k.token) + (k.gpu_null ? 7 : 0);
    }
  };
  std::unordered_map<TokenKey, uint32_t, TokenHash> by_token_;
  std::map<std::tuple<bool, int64_t, std::string>, uint32_t> by_name_;
  std::vector<Group> groups_;
  bool inexact_ = false;
};

}  // namespace rocpd::diagnosis
