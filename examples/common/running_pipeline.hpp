// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_COMMON_RUNNING_PIPELINE_HPP
#define REPLICANT_EXAMPLES_COMMON_RUNNING_PIPELINE_HPP

/// @file
/// Connects the stop signal (stop_signal.hpp) to a running replication pipeline: Ctrl-C or SIGTERM
/// calls `pipeline::stop()`, which is async-signal-safe, from the signal handler.

#include "stop_signal.hpp"

#include <atomic>

namespace replicant::examples {

namespace detail {

// The running pipeline of each type, for the signal hook. A lock-free atomic pointer, so the
// handler may load it.
template <class Pipeline>
inline std::atomic<Pipeline*> running_pipeline{nullptr};

template <class Pipeline>
auto stop_if_running() noexcept -> void {
  static_assert(std::atomic<Pipeline*>::is_always_lock_free, "the signal handler loads the pointer");
  if (auto* p = running_pipeline<Pipeline>.load()) p->stop();
}

}  // namespace detail

/**
 * The hook to give stop_signal::install() in a program that runs pipelines of the types
 * `Pipelines...` (one per checkpoint policy or store, say): it stops whichever of them is running.
 * Only lock-free atomic loads and `pipeline::stop()`, all async-signal-safe. Never throws.
 *
 * @par Example
 * @code
 * stop_signal::install(&stop_running_pipelines<file_pipeline, memory_pipeline>);
 * @endcode
 */
template <class... Pipelines>
auto stop_running_pipelines() noexcept -> void {
  (detail::stop_if_running<Pipelines>(), ...);
}

/**
 * Marks @p Pipeline as the running pipeline for as long as this object lives, so that a stop
 * signal stops it (through stop_running_pipelines()). A stop requested before the pipeline was
 * marked is passed on at once.
 *
 * The destructor first blocks the stop signals in the calling thread (stop_signal::block()), then
 * clears the mark: once `run()` has returned, the pipeline's own threads are joined, so no handler
 * can still be touching the pipeline, which may then be destroyed. Declare it after the pipeline
 * (so it is destroyed first) and let it end after `run()` returned. From then on the stop signals
 * stay blocked, which is what a program that is about to exit wants.
 *
 * @par Example
 * @code
 * my_pipeline pipeline{sink, pgoutput_options, options};
 * const running_pipeline_scope running{pipeline};
 * pipeline.run(ec);
 * @endcode
 *
 * @par Thread safety
 * Construct and destroy on the thread that calls `run()`. One at a time per pipeline type.
 */
template <class Pipeline>
class running_pipeline_scope {
 public:
  /// Marks @p p as running; stops it at once if a stop was already requested. Never throws.
  explicit running_pipeline_scope(Pipeline& p) noexcept {
    detail::running_pipeline<Pipeline>.store(&p);
    if (stop_signal::requested()) p.stop();
  }
  running_pipeline_scope(const running_pipeline_scope&) = delete;
  auto operator=(const running_pipeline_scope&) -> running_pipeline_scope& = delete;
  /// Blocks the stop signals in this thread, then clears the mark (see the class comment).
  ~running_pipeline_scope() {
    stop_signal::block();
    detail::running_pipeline<Pipeline>.store(nullptr);
  }
};

}  // namespace replicant::examples

#endif  // REPLICANT_EXAMPLES_COMMON_RUNNING_PIPELINE_HPP
