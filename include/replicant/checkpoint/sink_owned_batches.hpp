// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CHECKPOINT_SINK_OWNED_BATCHES_HPP
#define REPLICANT_CHECKPOINT_SINK_OWNED_BATCHES_HPP

/// @file
/// replicant::sink_owned_batches: the sink persists whole batches of transactions, each atomically
/// with its checkpoint.

#include <chrono>
#include <cstddef>

namespace replicant {

/**
 * Checkpoint policy: the sink owns the checkpoint and receives committed transactions in batches.
 *
 * The pipeline collects committed transactions and hands them to `handle_batch` in ascending
 * `commit_lsn` order. The sink persists all of their rows and the batch's highest commit LSN in one
 * atomic unit (one database transaction) and returns that LSN; `checkpoint()` returns the stored
 * one at every connect. Like @ref sink_owned_checkpoint this is exactly-once in effect, with one
 * commit per batch instead of one per transaction.
 *
 * A batch is handed over when it holds `max_transactions` transactions, when its first transaction
 * has waited `max_delay`, when it holds half of the resident budget (`max_inflight_bytes`, so that
 * pacing never waits for a timer), before a non-transactional message or a schema change (so that
 * the sink sees events in commit order), and when the pipeline stops. A failed batch (error result
 * or exception) halts `sink_failed`: nothing of it is acknowledged, and all of it is delivered again
 * after a restart.
 *
 * Requires of the sink: `checkpoint()` and `handle_batch(std::span<const transaction>)`; a
 * `handle_transaction` member, if any, is not called.
 *
 * @par Example
 * @code
 * replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_batches, replicant::no_spill, my_sink>
 *     p{sink, replicant::sink_owned_batches{.max_transactions = 500}, options};
 * @endcode
 */
struct sink_owned_batches {
  /// Most transactions in one batch (at least 1).
  std::size_t max_transactions = 100;
  /// Longest a transaction waits in an unfinished batch (more than zero).
  std::chrono::milliseconds max_delay = std::chrono::seconds(1);
};

}  // namespace replicant

#endif  // REPLICANT_CHECKPOINT_SINK_OWNED_BATCHES_HPP
