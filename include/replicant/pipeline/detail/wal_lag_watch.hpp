// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_DETAIL_WAL_LAG_WATCH_HPP
#define REPLICANT_PIPELINE_DETAIL_WAL_LAG_WATCH_HPP

// The judgement of the WAL-lag bound (pipeline_options::max_wal_lag), fed one measurement at a
// time by the session loop, which measures the server's WAL position minus the durable position
// while the sink holds the stream back. Kept apart from the I/O so that it can be tested alone.
//
// A lag past the bound is not enough to halt: a pipeline that catches up on a backlog (after an
// outage, say) starts far behind, and must be left to catch up. It halts when the lag stays past
// the bound without shrinking for a whole window of measurements, which is what a sink slower
// than the server looks like.

#include <cstdint>

namespace replicant::detail {

class wal_lag_watch {
 public:
  enum class verdict : std::uint8_t {
    fine,      // nothing to say
    lagging,   // the lag reached half the bound (once per crossing)
    too_slow,  // past the bound, and not shrinking for a whole window: halt
  };

  // Measurements in a row past the bound, none below the first of them, that make a halt.
  static constexpr int window = 10;

  explicit wal_lag_watch(std::int64_t bound) noexcept : bound_(bound) {}

  // Nothing waits unread: the sink keeps up, whatever the lag says.
  auto caught_up() noexcept -> void {
    announced_ = false;
    over_ = 0;
  }

  // One measurement of the lag, in bytes.
  auto measure(std::int64_t lag) noexcept -> verdict {
    if (lag <= bound_) {
      over_ = 0;
    } else if (over_ == 0 || lag < window_start_) {
      // Past the bound for the first time, or smaller than when the window began: catching up.
      over_ = 1;
      window_start_ = lag;
    } else if (++over_ >= window) {
      return verdict::too_slow;
    }
    const bool half = lag >= bound_ / 2;
    const bool announce = half && !announced_;
    announced_ = half;
    return announce ? verdict::lagging : verdict::fine;
  }

 private:
  std::int64_t bound_;
  std::int64_t window_start_ = 0;  // the lag when the current window past the bound began
  int over_ = 0;                   // measurements in the current window
  bool announced_ = false;         // lagging was said, and the lag has not fallen below half since
};

}  // namespace replicant::detail

#endif  // REPLICANT_PIPELINE_DETAIL_WAL_LAG_WATCH_HPP
