// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_BENCHMARKS_COMMON_SPLITMIX_HPP
#define REPLICANT_BENCHMARKS_COMMON_SPLITMIX_HPP

// The pseudo-random numbers of the benchmarks that generate their data in memory: one small
// generator from a fixed seed, so that every run sees the same data and its figures compare with
// the last run's.

#include <cstdint>

namespace replicant::bench {

/// splitmix64 (Steele, Lea and Flood, 2014), from a fixed seed: the same sequence on every run.
class splitmix64 {
 public:
  /// The next number of the sequence.
  auto next() noexcept -> std::uint64_t {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31U);
  }

 private:
  std::uint64_t state_ = 0x5EED;
};

}  // namespace replicant::bench

#endif  // REPLICANT_BENCHMARKS_COMMON_SPLITMIX_HPP
