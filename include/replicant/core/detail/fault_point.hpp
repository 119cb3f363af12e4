// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CORE_DETAIL_FAULT_POINT_HPP
#define REPLICANT_CORE_DETAIL_FAULT_POINT_HPP

/// @file
/// Crash points for the crash matrix of the test suite (docs/reliability.md). A build that defines
/// `REPLICANT_FAULT_INJECTION` (only test programs do) makes `REPLICANT_FAULT_POINT(name)` count
/// its passes and kill the process with SIGKILL at the pass the environment names:
///
///     REPLICANT_CRASH_AT=<name>[:<n>]     (n = 1 when left out)
///
/// Every other build compiles the macro to nothing: no code, no data, no environment lookup.
///
/// The points, in the order a transaction meets them: `mid_transaction` (a frame was applied and
/// a transaction is still open), `during_spill` (changes were just written to a spill file),
/// `mid_batch` (a transaction joined a sink-owned batch that is not handed over yet),
/// `before_sink` (the sink is about to be called), `after_sink` (the sink returned, nothing is
/// acknowledged yet), `after_checkpoint_write` (the library's store holds the checkpoint, the
/// slot is not acknowledged yet); and for snapshots `mid_snapshot` (a snapshot batch was stored,
/// more follow) and `snapshot_handoff` (the snapshot is complete, streaming has not begun).

#ifdef REPLICANT_FAULT_INJECTION

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <system_error>

namespace replicant::detail {

// The point and pass REPLICANT_CRASH_AT names, read once.
struct crash_plan {
  std::string_view point;
  std::uint64_t pass = 1;
  std::atomic<std::uint64_t> seen{0};

  crash_plan() noexcept {
    const char* v = std::getenv("REPLICANT_CRASH_AT");
    if (v == nullptr) return;
    const std::string_view text{v};
    const auto colon = text.find(':');
    point = text.substr(0, colon);
    if (colon != std::string_view::npos) {
      const auto n = text.substr(colon + 1);
      std::uint64_t parsed = 0;
      const auto r = std::from_chars(n.data(), n.data() + n.size(), parsed);
      if (r.ec == std::errc{} && parsed > 0) pass = parsed;
    }
  }
};

inline auto the_crash_plan() noexcept -> crash_plan& {
  static crash_plan plan;
  return plan;
}

// Kills the process at the planned pass of @p point.
inline auto fault_point(std::string_view point) noexcept -> void {
  auto& plan = the_crash_plan();
  if (plan.point.empty() || point != plan.point) return;
  if (plan.seen.fetch_add(1) + 1 == plan.pass) ::kill(::getpid(), SIGKILL);
}

}  // namespace replicant::detail

#define REPLICANT_FAULT_POINT(name) ::replicant::detail::fault_point(name)

#else

#define REPLICANT_FAULT_POINT(name) static_cast<void>(0)

#endif

#endif  // REPLICANT_CORE_DETAIL_FAULT_POINT_HPP
