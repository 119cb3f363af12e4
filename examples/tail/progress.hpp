// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_TAIL_PROGRESS_HPP
#define REPLICANT_EXAMPLES_TAIL_PROGRESS_HPP

/// @file
/// replicant-tail's snapshot progress on stderr: rows written, rows per second and an ETA against
/// an estimate of the total, updated in place on a terminal and as periodic lines otherwise; and
/// the writer that keeps those lines apart from the other status lines.
///
/// Only counts, rates, durations and LSNs are ever printed here: no row value, no table name.

#include <replicant/core/lsn.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace replicant::examples::tail {

/**
 * What the catalog says a snapshot will read, before it starts: how many tables the publications
 * hold and about how many rows (see estimate.hpp).
 *
 * @par Thread safety
 * A value type.
 */
struct snapshot_estimate {
  /// Published tables (each counted once, however many publications list it).
  std::uint64_t tables = 0;
  /// Their rows, from the planner's statistics (`pg_class.reltuples`); none when a table has never
  /// been vacuumed or analysed, so that no statistics exist to add up.
  std::optional<std::uint64_t> rows;
};

namespace detail {

// "9s", "1m05s", "2h03m": short, and precise enough for an estimate.
[[nodiscard]] inline auto format_duration(std::chrono::seconds d) -> std::string {
  const auto s = d.count() < 0 ? std::int64_t{0} : static_cast<std::int64_t>(d.count());
  const auto two = [](std::int64_t v) { return (v < 10 ? "0" : "") + std::to_string(v); };
  if (s < 60) return std::to_string(s) + "s";
  if (s < 3600) return std::to_string(s / 60) + "m" + two(s % 60) + "s";
  return std::to_string(s / 3600) + "h" + two(s / 60 % 60) + "m";
}

// Seconds with one decimal below a minute ("0.4 s"), whole seconds from there on ("75 s").
[[nodiscard]] inline auto format_seconds(double seconds) -> std::string {
  if (seconds < 0) seconds = 0;
  if (seconds >= 60) return std::to_string(static_cast<std::uint64_t>(seconds + 0.5)) + " s";
  const auto tenths = static_cast<std::uint64_t>(seconds * 10 + 0.5);
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " s";
}

}  // namespace detail

/**
 * Turns what happens during a snapshot into replicant-tail's progress lines (without the
 * `replicant-tail: ` prefix). It decides what to print and when; @ref status_output prints it.
 *
 * | when | line |
 * |---|---|
 * | the snapshot starts (`replicant.snapshot.started`) | `taking a snapshot at 0/16B3748 of 2 tables, ~5000 rows (estimated)` |
 * | rows were written, at most once per interval | `snapshot: 2000 of ~5000 rows (40%), 8000 rows/s, ETA 0s` |
 * | it completes (`replicant.snapshot.completed`) | `snapshot complete: 5000 rows in 0.6 s (8333 rows/s)` |
 *
 * The total is an estimate (the planner's statistics, read before the snapshot), so the percentage
 * and the ETA are too; past the estimate the line says so and shows no ETA, and without one it
 * shows none either. The rate is the average since the snapshot started.
 *
 * Times are passed in, so the decisions are deterministic (the unit tests pass their own clock).
 *
 * @par Example
 * @code
 * progress_reporter progress{std::chrono::seconds{5}, estimate};
 * auto first = progress.started(consistent_point, clock::now());  // print it
 * if (auto line = progress.rows_written(n, clock::now())) show(*line);
 * @endcode
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe (replicant-tail calls it under @ref status_output's
 * lock).
 */
class progress_reporter {
 public:
  /// The clock of the timestamps passed in.
  using clock = std::chrono::steady_clock;

  /**
   * A reporter that lets at least @p interval pass between two progress lines, and measures
   * against @p estimate (none: rows and rate only). Never throws.
   */
  progress_reporter(clock::duration interval, std::optional<snapshot_estimate> estimate) noexcept
      : interval_(interval), estimate_(estimate) {}

  /**
   * The snapshot started at @p at: the line announcing it.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto started(lsn at, clock::time_point now) -> std::string {
    started_ = now;
    last_line_ = now;
    rows_ = 0;
    std::string line = "taking a snapshot at " + to_string(at);
    if (estimate_) {
      line += " of " + std::to_string(estimate_->tables) + (estimate_->tables == 1 ? " table" : " tables");
      line += estimate_->rows ? ", ~" + std::to_string(*estimate_->rows) + " rows (estimated)"
                              : ", total unknown (no table statistics yet)";
    }
    return line;
  }

  /**
   * @p rows have been written in all, at @p now. @return a progress line when the interval has
   * passed since the previous one (or since the start), else nothing.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto rows_written(std::uint64_t rows, clock::time_point now) -> std::optional<std::string> {
    rows_ = rows;
    if (!started_ || now - last_line_ < interval_) return std::nullopt;
    last_line_ = now;
    return line(now);
  }

  /**
   * The progress line for the rows written so far, at @p now, whatever the interval.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto line(clock::time_point now) const -> std::string {
    const double elapsed = started_ ? std::chrono::duration<double>(now - *started_).count() : 0.0;
    const double rate = elapsed > 0 ? static_cast<double>(rows_) / elapsed : 0.0;
    std::string out = "snapshot: " + std::to_string(rows_);
    const std::optional<std::uint64_t> total = estimate_ ? estimate_->rows : std::nullopt;
    if (total && rows_ <= *total && *total > 0) {
      out += " of ~" + std::to_string(*total) + " rows (" + std::to_string(rows_ * 100 / *total) + "%)";
    } else if (total) {
      out += " rows (more than the ~" + std::to_string(*total) + " estimated)";
    } else {
      out += " rows";
    }
    out += ", " + std::to_string(static_cast<std::uint64_t>(rate)) + " rows/s";
    if (total && rows_ <= *total && rate > 0) {
      const auto left = static_cast<double>(*total - rows_) / rate;
      out += ", ETA " + detail::format_duration(std::chrono::seconds{static_cast<std::int64_t>(left + 0.5)});
    } else {
      out += ", ETA unknown";
    }
    return out;
  }

  /**
   * The snapshot completed: @p rows in all, in @p duration (as the pipeline measured it).
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto completed(std::uint64_t rows, std::chrono::nanoseconds duration) -> std::string {
    rows_ = rows;
    completed_ = true;
    const double seconds = std::chrono::duration<double>(duration).count();
    std::string out = "snapshot complete: " + std::to_string(rows) + (rows == 1 ? " row" : " rows") + " in " +
                      detail::format_seconds(seconds);
    if (seconds > 0) {
      out += " (" + std::to_string(static_cast<std::uint64_t>(static_cast<double>(rows) / seconds)) + " rows/s)";
    }
    return out;
  }

  /// Whether the snapshot started and has not completed (yet). Never throws.
  [[nodiscard]] auto in_progress() const noexcept -> bool { return started_.has_value() && !completed_; }

  /// Rows written so far. Never throws.
  [[nodiscard]] auto rows() const noexcept -> std::uint64_t { return rows_; }

  /// The estimate measured against, if any. Never throws.
  [[nodiscard]] auto estimate() const noexcept -> const std::optional<snapshot_estimate>& { return estimate_; }

 private:
  clock::duration interval_;
  std::optional<snapshot_estimate> estimate_;
  std::optional<clock::time_point> started_;
  clock::time_point last_line_{};
  std::uint64_t rows_ = 0;
  bool completed_ = false;
};

/**
 * replicant-tail's stderr: status lines (`replicant-tail: ...` and a newline) and, on a terminal,
 * one progress line kept at the bottom and rewritten in place (carriage return, the line, erase to
 * its end), which a status line first clears, so the two never interleave. Where stderr is not a
 * terminal (a file, a pipe, a journal), a progress line is simply a status line of its own.
 *
 * Each call is one `fputs` of a whole line, under a lock, to the unbuffered stderr. Members throw
 * only std::bad_alloc (and, in theory, the std::system_error of a lock that fails).
 *
 * @par Thread safety
 * Safe: the pipeline's telemetry arrives from its connection and applier threads.
 */
class status_output {
 public:
  /// Writes to @p stream (which must outlive it); @p terminal: rewrite progress lines in place.
  /// Never throws.
  status_output(std::FILE* stream, bool terminal) noexcept : stream_(stream), terminal_(terminal) {}

  /// Writes to stderr, in place when it is a terminal. Never throws.
  status_output() noexcept : status_output(stderr, ::isatty(STDERR_FILENO) == 1) {}

  /// Whether progress lines are rewritten in place. Never throws.
  [[nodiscard]] auto in_place() const noexcept -> bool { return terminal_; }

  /// Prints @p text as a status line, after the prefix. @throws std::bad_alloc only.
  auto say(std::string_view text) -> void {
    std::string line{prefix};
    line += text;
    print_line(line);
  }

  /// Prints @p line as it is (it carries its own prefix), and a newline. @throws std::bad_alloc only.
  auto print_line(std::string_view line) -> void {
    const std::lock_guard lock{mutex_};
    std::string out = showing_progress_ ? "\r\x1b[K" : "";
    showing_progress_ = false;
    out += line;
    out += '\n';
    std::fputs(out.c_str(), stream_);
  }

  /// Prints @p text as the progress line: in place on a terminal, else as a status line.
  /// @throws std::bad_alloc only.
  auto progress(std::string_view text) -> void {
    if (!terminal_) {
      say(text);
      return;
    }
    const std::lock_guard lock{mutex_};
    std::string out = "\r";
    out += prefix;
    out += text;
    out += "\x1b[K";
    std::fputs(out.c_str(), stream_);
    showing_progress_ = true;
  }

  /// What every line starts with.
  static constexpr std::string_view prefix = "replicant-tail: ";

 private:
  std::FILE* stream_;
  bool terminal_;
  bool showing_progress_ = false;
  std::mutex mutex_;
};

/**
 * A @ref progress_reporter wired to a @ref status_output and the clock: what replicant-tail's sink
 * and telemetry handler call during a snapshot. On a terminal the progress line is rewritten at
 * most four times a second; elsewhere one line is printed every `interval`.
 *
 * @par Example
 * @code
 * status_output out;
 * progress_display progress{out, std::chrono::seconds{5}, estimate};
 * progress.started(at);           // from replicant.snapshot.started
 * progress.rows_written(12000);   // from the sink, after each batch
 * progress.completed(n, took);    // from replicant.snapshot.completed
 * @endcode
 *
 * @par Exceptions
 * Members throw only std::bad_alloc (and, in theory, the std::system_error of a lock that fails).
 *
 * @par Thread safety
 * Safe (one lock around the reporter).
 */
class progress_display {
 public:
  /// How often a terminal's progress line is rewritten at most.
  static constexpr std::chrono::milliseconds terminal_interval{250};

  /// Reports on @p out (which must outlive it), every @p interval when @p out is not a terminal,
  /// against @p estimate. Never throws.
  progress_display(status_output& out, std::chrono::milliseconds interval,
                   std::optional<snapshot_estimate> estimate) noexcept
      : out_(&out), reporter_(out.in_place() ? terminal_interval : interval, estimate) {}

  /// The snapshot started at @p at. @throws std::bad_alloc only.
  auto started(lsn at) -> void {
    const std::lock_guard lock{mutex_};
    out_->say(reporter_.started(at, progress_reporter::clock::now()));
  }

  /// @p rows have been written in all. @throws std::bad_alloc only.
  auto rows_written(std::uint64_t rows) -> void {
    const std::lock_guard lock{mutex_};
    if (auto line = reporter_.rows_written(rows, progress_reporter::clock::now())) out_->progress(*line);
  }

  /// The snapshot completed with @p rows in @p duration. @throws std::bad_alloc only.
  auto completed(std::uint64_t rows, std::chrono::nanoseconds duration) -> void {
    const std::lock_guard lock{mutex_};
    out_->say(reporter_.completed(rows, duration));
  }

  /// Whether a snapshot started and has not completed.
  [[nodiscard]] auto in_progress() const -> bool {
    const std::lock_guard lock{mutex_};
    return reporter_.in_progress();
  }

  /// Rows written so far.
  [[nodiscard]] auto rows() const -> std::uint64_t {
    const std::lock_guard lock{mutex_};
    return reporter_.rows();
  }

  /// The estimated total of rows, if any.
  [[nodiscard]] auto estimated_rows() const -> std::optional<std::uint64_t> {
    const std::lock_guard lock{mutex_};
    return reporter_.estimate() ? reporter_.estimate()->rows : std::nullopt;
  }

 private:
  status_output* out_;
  mutable std::mutex mutex_;
  progress_reporter reporter_;
};

}  // namespace replicant::examples::tail

#endif  // REPLICANT_EXAMPLES_TAIL_PROGRESS_HPP
