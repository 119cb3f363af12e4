// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_COMMON_BROKER_OUTAGE_HPP
#define REPLICANT_EXAMPLES_COMMON_BROKER_OUTAGE_HPP

/// @file
/// How a program that writes into a message broker rides out the broker's outages: the clock of
/// an outage against `--max-outage-s`, and the loop that runs the replication pipeline again after
/// each sink failure that may pass by itself, until the outage has lasted too long.
///
/// A broker cluster is briefly away as a matter of course (a leader election, a rolling restart,
/// a network blip). The sink then fails the transaction, the pipeline halts `sink_failed` having
/// acknowledged nothing past what the broker holds, and running it again resumes exactly there.
/// So a program retries such a halt, with a growing pause, but not forever: an outage that lasts
/// is a fault someone must see. replicant-jetstream and replicant-kafka run their pipelines so.

#include "cli.hpp"
#include "running_pipeline.hpp"
#include "stop_signal.hpp"

#include <replicant/core/error.hpp>
#include <replicant/core/halt.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace replicant::examples {

/**
 * How long a fault that may pass by itself has lasted: from its first failure since the last
 * success, against a limit (`--max-outage-s`).
 *
 * @par Example
 * @code
 * outage_clock outage{std::chrono::seconds{60}};
 * while (!try_once()) {
 *   if (outage.over()) return give_up();
 *   stop_signal::sleep_for(std::chrono::milliseconds{200});
 * }
 * outage.reset();
 * @endcode
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe.
 */
class outage_clock {
 public:
  /// A clock that gives up once an outage has lasted @p limit. Never throws.
  explicit outage_clock(std::chrono::seconds limit) noexcept : limit_{limit} {}

  /// Counts a failure, starting the outage if none is running: whether it has now lasted the
  /// limit. Never throws.
  [[nodiscard]] auto over() noexcept -> bool {
    const auto now = std::chrono::steady_clock::now();
    if (!since_) since_ = now;
    return now - *since_ >= limit_;
  }

  /// Counts a success: the next failure starts a new outage. Never throws.
  auto reset() noexcept -> void { since_.reset(); }

 private:
  std::chrono::seconds limit_;
  std::optional<std::chrono::steady_clock::time_point> since_;
};

/**
 * What run_through_outages() needs to know of a program's broker: which faults may pass by
 * themselves, how long they may last, how to tell that the sink made progress, and the words for
 * the lines it says. The lines name codes and counts only, never a broker's address or a value.
 *
 * @par Example
 * @code
 * broker_outage{.broker = "the stream",
 *               .max_outage = o.max_outage,
 *               .transient = &is_transient,
 *               .progress = [&sink] { return sink.counts().confirmed; },
 *               .fault = [](const replicant::halt& h) { return " (" + h.cause.message() + ")"; }}
 * @endcode
 *
 * @par Thread safety
 * A value type; its functions are called on the thread that runs the pipeline.
 */
struct broker_outage {
  /// The broker as the lines name it, e.g. `"the stream"` in "the stream is unavailable".
  std::string_view broker;
  /// How long a run of transient failures may last (`--max-outage-s`), counted again from any
  /// progress.
  std::chrono::seconds max_outage;
  /// Whether a `sink_failed` halt's cause may pass by itself (no leader, no quorum, no answer):
  /// only those are retried.
  bool (*transient)(std::error_code);
  /// A count that moves whenever the sink made progress (transactions the broker confirmed or
  /// committed): an outage interrupted by progress is a new outage, and the pause starts short
  /// again.
  std::function<std::uint64_t()> progress;
  /// What follows "<broker> is unavailable" in the line said before each retry, e.g. the fault in
  /// parentheses; may be empty text.
  std::function<std::string(const halt&)> fault;
  /// What follows a halt's description when the program ends on it, e.g. the broker's own error
  /// code; none when empty.
  std::function<std::string()> detail{};
};

/**
 * Runs @p pipeline until it is stopped or halts for good, and returns the program's exit status.
 *
 * A `sink_failed` halt whose cause is @ref broker_outage::transient runs the pipeline again after
 * a pause of 100 ms, doubling up to 2 s, and says "<broker> is unavailable<fault>; retrying";
 * progress since the last such halt (@ref broker_outage::progress moved) starts the outage and
 * the pause again. An outage longer than @ref broker_outage::max_outage ends the program with
 * @ref exit_failure and says "<broker> stayed unavailable for longer than --max-outage-s:
 * <halt><detail>". Any other halt is said ("<halt><detail>") and ends it with @ref exit_refused
 * when the pipeline refused to start (`replicant::is_start_rejection`), else with
 * @ref exit_failure. A stop request, or a run that ends without a halt, gives @ref exit_ok.
 *
 * The pipeline is marked running (@ref running_pipeline_scope) for as long as this runs, so a
 * stop signal stops it, and the pauses end at a stop request (stop_signal::sleep_for()).
 *
 * @par Example
 * @code
 * const int status = run_through_outages(pipeline, broker_outage{...}, say);
 * say("ended; " + counts(sink));
 * return status;
 * @endcode
 *
 * @param pipeline the pipeline, made and not yet run.
 * @param broker what to retry, for how long, and the words for it.
 * @param say writes one line (the program's stderr).
 * @throws std::bad_alloc only, or what @p broker's functions throw.
 *
 * @par Thread safety
 * Call it on one thread, at most one per pipeline type at a time (@ref running_pipeline_scope).
 */
template <class Pipeline>
[[nodiscard]] auto run_through_outages(Pipeline& pipeline, const broker_outage& broker, void (*say)(const std::string&))
    -> int {
  // A short first pause finds a broker that was away for a moment again at once; doubling, up to
  // 2 s, spares one that stays away, and keeps a broker that returns from waiting long for us.
  constexpr std::chrono::milliseconds first_pause{100};
  constexpr std::chrono::milliseconds longest_pause{2000};
  const auto detail_text = [&broker] { return broker.detail ? broker.detail() : std::string{}; };

  outage_clock outage{broker.max_outage};
  auto progress_before = broker.progress();
  auto pause = first_pause;
  for (const running_pipeline_scope running{pipeline};;) {
    std::error_code ec;
    pipeline.run(ec);
    if (ec != errc::halted || stop_signal::requested()) return exit_ok;
    const halt& h = *pipeline.last_halt();  // errc::halted says that it stopped, the halt says why
    if (h.reason != halt_reason::sink_failed || !broker.transient(h.cause)) {
      say(replicant::describe(h) + detail_text());
      return replicant::is_start_rejection(h.reason) ? exit_refused : exit_failure;
    }
    if (const auto progress_now = broker.progress(); progress_now != progress_before) {
      progress_before = progress_now;
      outage.reset();
      pause = first_pause;
    }
    if (outage.over()) {
      say(std::string{broker.broker} + " stayed unavailable for longer than --max-outage-s: " + replicant::describe(h) +
          detail_text());
      return exit_failure;
    }
    say(std::string{broker.broker} + " is unavailable" + broker.fault(h) + "; retrying");
    stop_signal::sleep_for(pause);
    pause = std::min(pause * 2, longest_pause);
  }
}

}  // namespace replicant::examples

#endif  // REPLICANT_EXAMPLES_COMMON_BROKER_OUTAGE_HPP
