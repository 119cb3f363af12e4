// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_BENCHMARKS_COMMON_STATISTICS_HPP
#define REPLICANT_BENCHMARKS_COMMON_STATISTICS_HPP

// The figures the benchmarks report over their rounds: the median, which one slow round does not
// move, and the best and worst round.

#include <algorithm>
#include <cstddef>
#include <vector>

namespace replicant::bench {

/// The median of @p v; 0 when it is empty (a run that failed before its first round).
inline auto median(std::vector<double> v) -> double {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// The least of @p v; 0 when it is empty.
inline auto minimum(const std::vector<double>& v) -> double {
  return v.empty() ? 0 : *std::min_element(v.begin(), v.end());
}

/// The greatest of @p v; 0 when it is empty.
inline auto maximum(const std::vector<double>& v) -> double {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

}  // namespace replicant::bench

#endif  // REPLICANT_BENCHMARKS_COMMON_STATISTICS_HPP
