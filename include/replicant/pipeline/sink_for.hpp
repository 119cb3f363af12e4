// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_SINK_FOR_HPP
#define REPLICANT_PIPELINE_SINK_FOR_HPP

/// @file
/// replicant::sink_for: whether a sink fits a decoder and a checkpoint policy together, which a
/// user can `static_assert` in their own tests without building a pipeline; and the pipeline's
/// checklist for the same, with one sentence per missing member.

#include <replicant/checkpoint/deferred.hpp>
#include <replicant/checkpoint/lib_owned.hpp>
#include <replicant/checkpoint/policy.hpp>
#include <replicant/checkpoint/sink_owned.hpp>
#include <replicant/checkpoint/sink_owned_batches.hpp>
#include <replicant/decoder/policy.hpp>
#include <replicant/sink/concepts.hpp>

namespace replicant {

namespace detail {

// A hook that only a capability the decoder lacks would call is refused rather than silently never
// called (as a `checkpoint()` is under a library-owned checkpoint): one atom per capability, shared by
// the concept (sink_for) and the pipeline's checklist (check_decoder_serves).
template <class D, class S>
concept serves_handle_message = D::capabilities.messages || !names_handle_message<S>;
template <class D, class S>
concept serves_handle_prepare = D::capabilities.two_phase || !names_handle_prepare<S>;
template <class D, class S>
concept serves_snapshot_hooks =
    D::capabilities.snapshot || !(names_handle_snapshot<S> || names_handle_snapshot_complete<S>);

// Every hook the sink declares is one the decoder can call.
template <class D, class S>
concept decoder_serves_hooks =
    serves_handle_message<D, S> && serves_handle_prepare<D, S> && serves_snapshot_hooks<D, S>;

/**
 * The pipeline's checklist of the same, one sentence per hook the decoder @p D would never call.
 * @return true; such a hook does not compile.
 */
template <class D, class Sink>
constexpr auto check_decoder_serves() -> bool {
  if constexpr (has_capabilities<D>) {
    static_assert(serves_handle_message<D, Sink>,
                  "replicant: this Decoder cannot deliver logical messages (pglogical has none), so "
                  "Sink::handle_message would never be called: remove it, or use pgoutput_decoder or wal2json_decoder");
    static_assert(serves_handle_prepare<D, Sink>,
                  "replicant: this Decoder cannot decode two-phase transactions (only pgoutput can), so "
                  "Sink::handle_prepare would never be called: remove it, or use pgoutput_decoder");
    static_assert(serves_snapshot_hooks<D, Sink>,
                  "replicant: this Decoder has no snapshot start mode (only pgoutput, through its publications), so "
                  "Sink::handle_snapshot would never be called: remove it, or use pgoutput_decoder");
  }
  return true;
}

/**
 * The sink checklist for a checkpoint policy: the optional hooks, then, once every hook the sink
 * declares fits, one `static_assert` per member the policy requires (or forbids), each naming the
 * member, its signature and its purpose. The pipeline uses it as
 * `static_assert(detail::check_sink<Sink, CheckpointPolicy>())`.
 *
 * The policy's list waits for the hooks' so that a hook reported once is not reported again by a
 * policy that needs the same member (the incremental snapshot's `handle_snapshot`).
 *
 * @return true: a sink that does not fit does not compile, with one sentence per member (returning
 * whether it fits would add a second, bare failure of the caller's `static_assert`).
 */
template <class S, class Policy = sink_owned_checkpoint>
constexpr auto check_sink() -> bool {
  check_hooks<S>();
  if constexpr (hooks_declared<S>) check_checkpoint_policy<Policy, S>();
  return true;
}

// Whether the pipeline can run the incremental snapshot for this sink and checkpoint policy: the
// sink takes chunks, and the policy's delivery keeps the progress (the sink's, or a store's).
template <class S, class Policy>
inline constexpr bool supports_incremental_snapshot = [] {
  if constexpr (has_handle_snapshot<S> && has_delivery<Policy, S>) {
    return keeps_snapshot_progress<delivery_of<Policy, S>, S>;
  } else {
    return false;
  }
}();

}  // namespace detail

/**
 * Whether a pipeline of @p Decoder and @p CheckpointPolicy can deliver to @p Sink: the decoder is
 * a @ref replicant::decoder_policy "decoder_policy", the checkpoint policy models
 * @ref replicant::checkpoint_policy_for "checkpoint_policy_for" this sink and
 * accepts it (every member it requires is there, with its signature), every optional hook the
 * sink declares is declared exactly as the pipeline calls it, and the decoder can call each one.
 *
 * Use it in your own tests to check a sink without building a pipeline; the pipeline itself
 * reports a sink that does not fit member by member, in plain sentences.
 *
 * @par Example
 * @code
 * static_assert(replicant::sink_for<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint, my_sink>);
 * static_assert(!replicant::sink_for<replicant::pgoutput_decoder, replicant::sink_owned_batches, my_sink>);
 * @endcode
 *
 * @tparam Decoder the output plugin's decoder.
 * @tparam CheckpointPolicy who owns the checkpoint, and when a position becomes durable.
 * @tparam Sink the user's sink.
 */
template <class Decoder, class CheckpointPolicy, class Sink>
concept sink_for = decoder_policy<Decoder> && checkpoint_policy_for<CheckpointPolicy, Sink> &&
                   CheckpointPolicy::template accepts<Sink> && detail::hooks_declared<Sink> &&
                   detail::decoder_serves_hooks<Decoder, Sink>;

}  // namespace replicant

#endif  // REPLICANT_PIPELINE_SINK_FOR_HPP
