#include "mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace rocpd_cli {

RankTest mann_whitney(const std::vector<double>& a, const std::vector<double>& b) {
  RankTest t;
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  if (a.empty() || b.empty()) return t;
  std::vector<std::pair<double, int>> pooled;
  pooled.reserve(a.size() + b.size());
  for (double v : a) pooled.emplace_back(v, 0);
  for (double v : b) pooled.emplace_back(v, 1);
  std::sort(pooled.begin(), pooled.end());
  const double n = na + nb;
  double rank_sum_b = 0, ties = 0;
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double count = static_cast<double>(j - i);
    const double mid_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (size_t k = i; k < j; ++k)
      if (pooled[k].second == 1) rank_sum_b += mid_rank;
    ties += count * count * count - count;
    i = j;
  }
  t.u = rank_sum_b - nb * (nb + 1) / 2.0;
  const double variance = na * nb / 12.0 * ((n + 1) - ties / (n * (n - 1)));
  if (!(variance > 0)) return t;  // every value tied: no evidence either way
  const double diff = t.u - na * nb / 2.0;
  const double corrected = std::max(0.0, std::fabs(diff) - 0.5);
  t.z = std::copysign(corrected / std::sqrt(variance), diff);
  t.p = std::erfc(std::fabs(t.z) / std::sqrt(2.0));
  return t;
}

void Reservoir::add(double v) {
  ++seen_;
  if (values_.size() < cap_) {
    values_.push_back(v);
    return;
  }
  // splitmix64: a fixed sequence, so that a report is the same every time it is made.
  state_ += 0x9e3779b97f4a7c15ULL;
  std::uint64_t x = state_;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  x ^= x >> 31;
  const std::uint64_t slot = x % static_cast<std::uint64_t>(seen_);
  if (slot < cap_) values_[slot] = v;
}

}  // namespace rocpd_cli
