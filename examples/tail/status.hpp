// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_TAIL_STATUS_HPP
#define REPLICANT_EXAMPLES_TAIL_STATUS_HPP

/// @file
/// replicant-tail's status lines on stderr, made from the replication pipeline's telemetry: where
/// streaming starts, reconnects, checkpoint-file retries, and the final summary.
///
/// Telemetry is value-free by construction (its keys take LSNs, counts, codes and names only), and
/// of what it carries only positions, counts and codes are printed here: never the slot name, which
/// came from the command line.

#include <replicant/core/error.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/telemetry/telemetry.hpp>

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace replicant::examples::tail {

/**
 * Turns the pipeline's telemetry events into replicant-tail's status lines (without the
 * `replicant-tail: ` prefix and the newline). Most events print nothing.
 *
 * | event | line |
 * |---|---|
 * | `replicant.connection.slot_active`, first | `streaming after checkpoint 0/16B3748 (PostgreSQL 16)`, or `streaming from the slot's acknowledged position (PostgreSQL 16)` with no checkpoint yet |
 * | `replicant.connection.slot_active`, later | `reconnected; streaming after checkpoint ...` |
 * | `replicant.connection.disconnected`, not stopping | `the connection ended; reconnecting` |
 * | `replicant.checkpoint_store.retrying` | `writing the checkpoint failed [io_failed]; retry 1 of 5` |
 *
 * Halts are not reported here: the pipeline's `last_halt()` says more, once it has stopped.
 *
 * @par Example
 * @code
 * status_reporter status{server_version};
 * events.attach([&](const replicant::telemetry::event_record& e) {
 *   if (auto line = status.line_for(e, stop_signal::requested())) say(*line);
 * });
 * @endcode
 *
 * @par Thread safety
 * line_for() may be called from several threads at once (the pipeline emits from its connection
 * and applier threads).
 */
class status_reporter {
 public:
  /// Reports for a server of @p server_version (as `PQserverVersion` gives it, e.g. 160004).
  /// Never throws.
  explicit status_reporter(int server_version) noexcept : server_major_(server_version / 10000) {}

  /**
   * The status line for event @p e, or nothing.
   * @param stopping whether a stop was requested: the disconnection that follows is then expected
   * and not reported.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto line_for(const telemetry::event_record& e, bool stopping) -> std::optional<std::string> {
    if (e.name == "replicant.connection.slot_active") {
      const auto at = lsn_of(e, "commit_lsn").value_or(lsn{});
      const bool first = sessions_.fetch_add(1) == 0;
      std::string line = first ? "streaming" : "reconnected; streaming";
      line +=
          at.is_valid() ? " after checkpoint " + to_string(at) : std::string{" from the slot's acknowledged position"};
      if (first) line += " (PostgreSQL " + std::to_string(server_major_) + ")";
      return line;
    }
    if (e.name == "replicant.connection.disconnected") {
      // With a reason it ends in a halt (sink_too_slow), which is reported by itself.
      if (stopping || e.find("reason") != nullptr) return std::nullopt;
      return "the connection ended; reconnecting";
    }
    if (e.name == "replicant.checkpoint_store.retrying") {
      std::string line = "writing the checkpoint failed";
      if (const auto* c = e.find("error_class"); c != nullptr && std::holds_alternative<errc>(*c)) {
        line += " [";
        line += to_string(std::get<errc>(*c));
        line += ']';
      }
      line += "; retry " + std::to_string(int_of(e, "attempt")) + " of " + std::to_string(int_of(e, "max_retries"));
      return line;
    }
    return std::nullopt;
  }

  /// How many streaming sessions started so far (the first one and every reconnect). Never throws.
  [[nodiscard]] auto sessions() const noexcept -> std::uint32_t { return sessions_.load(); }

 private:
  [[nodiscard]] static auto lsn_of(const telemetry::event_record& e, std::string_view key) noexcept
      -> std::optional<lsn> {
    const auto* v = e.find(key);
    if (v == nullptr || !std::holds_alternative<lsn>(*v)) return std::nullopt;
    return std::get<lsn>(*v);
  }

  [[nodiscard]] static auto int_of(const telemetry::event_record& e, std::string_view key) noexcept -> std::int64_t {
    const auto* v = e.find(key);
    return v != nullptr && std::holds_alternative<std::int64_t>(*v) ? std::get<std::int64_t>(*v) : 0;
  }

  int server_major_;
  std::atomic<std::uint32_t> sessions_{0};
};

/**
 * The last status line: `stopped; 12 transactions written, acknowledged up to 0/16B3748`, with
 * @p how in place of `stopped` (e.g. `the output was closed; stopped`), and with
 * `5000 snapshot rows and ` before the transactions when a snapshot wrote @p snapshot_rows.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto summary_line(std::string_view how, std::uint64_t written, lsn acknowledged,
                                       std::uint64_t snapshot_rows = 0) -> std::string {
  std::string line{how};
  line += "; ";
  if (snapshot_rows > 0) {
    line += std::to_string(snapshot_rows) + (snapshot_rows == 1 ? " snapshot row and " : " snapshot rows and ");
  }
  line += std::to_string(written) + (written == 1 ? " transaction" : " transactions") +
          " written, acknowledged up to " + to_string(acknowledged);
  return line;
}

/**
 * The status line of a snapshot that did not complete: how many of its rows were written (and of
 * about how many, when estimated), and what that means for the next run: the snapshot cannot be
 * finished, so a new one needs the slot dropped first, or the next `--snapshot` start stops with
 * `snapshot_incomplete`. @p how says why it ended (e.g. `stopped during the snapshot`).
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto incomplete_snapshot_line(std::string_view how, std::uint64_t rows,
                                                   std::optional<std::uint64_t> estimated) -> std::string {
  std::string line{how};
  line += " after " + std::to_string(rows);
  if (estimated) line += " of ~" + std::to_string(*estimated);
  line += rows == 1 && !estimated ? " row" : " rows";
  line +=
      "; the snapshot is incomplete and cannot be resumed: drop the slot (pg_drop_replication_slot) and run again "
      "for a new one (until then, --snapshot stops with snapshot_incomplete)";
  return line;
}

}  // namespace replicant::examples::tail

#endif  // REPLICANT_EXAMPLES_TAIL_STATUS_HPP
