// The Mann-Whitney U test of two samples of durations (docs/cli.md, "Noise"): whether one run's
// calls of a kernel or API tend to take longer than the other's, without assuming a distribution.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rocpd_cli {

struct RankTest {
  double u = 0;  // U of sample b: the pairs (x in a, y in b) with y > x, ties counting one half
  double z = 0;  // (U - n_a n_b / 2) with the continuity correction, over the tie-corrected sigma
  double p = 1;  // two-sided, from the normal approximation; 1 when every value is tied
};

// Ranks the pooled samples (mid-ranks for ties), U = R_b - n_b (n_b + 1) / 2,
// sigma^2 = n_a n_b / 12 ((n + 1) - sum(t^3 - t) / (n (n - 1))) over the tie groups t.
RankTest mann_whitney(const std::vector<double>& a, const std::vector<double>& b);

// A uniform sample of at most `cap` values of a stream (reservoir sampling, algorithm R), the
// same for the same stream: its generator starts from a fixed seed.
class Reservoir {
 public:
  explicit Reservoir(size_t cap) : cap_(cap) {}
  void add(double v);
  const std::vector<double>& values() const { return values_; }
  std::int64_t seen() const { return seen_; }

 private:
  size_t cap_;
  std::int64_t seen_ = 0;
  std::uint64_t state_ = 0x9e3779b97f4a7c15ULL;
  std::vector<double> values_;
};

}  // namespace rocpd_cli
