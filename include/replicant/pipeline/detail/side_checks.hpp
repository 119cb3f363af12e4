// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_DETAIL_SIDE_CHECKS_HPP
#define REPLICANT_PIPELINE_DETAIL_SIDE_CHECKS_HPP

// The count behind pipeline_options::max_side_check_failures: the failures in a row of each check
// the session loop makes beside the stream, on the pipeline's ordinary connection. A check that
// cannot be made must not pass for one that found nothing wrong (it would fail open), nor halt at
// the first refused connection of a server that is restarting; so failures are counted, and a run
// of them as long as the bound halts.
//
// Each check counts its own run, so that one that keeps failing is not hidden by another that
// succeeds in between. The count lives as long as the pipeline's run(), not a session: a
// reconnect (which a restarting server also causes) does not start a blind check's count again.

#include <array>
#include <cstddef>
#include <cstdint>

namespace replicant::detail {

class side_checks {
 public:
  enum class check : std::uint8_t {
    wal_lag,       // the WAL lag behind the server (max_wal_lag)
    publications,  // the publications still exist and send no less (publication_check_interval)
  };

  explicit side_checks(std::uint32_t bound = 0) noexcept : bound_(bound) {}

  // The check was made: its run of failures is over.
  auto succeeded(check c) noexcept -> void { runs_[index(c)] = 0; }

  // The check could not be made: its failures in a row, this one included.
  auto failed(check c) noexcept -> std::uint32_t { return ++runs_[index(c)]; }

  // Whether @p run failures in a row reach the bound (never, for a bound of 0).
  [[nodiscard]] auto exhausted(std::uint32_t run) const noexcept -> bool { return bound_ > 0 && run >= bound_; }

 private:
  static constexpr auto index(check c) noexcept -> std::size_t { return static_cast<std::size_t>(c); }

  std::uint32_t bound_;
  std::array<std::uint32_t, 2> runs_{};
};

}  // namespace replicant::detail

#endif  // REPLICANT_PIPELINE_DETAIL_SIDE_CHECKS_HPP
