// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CHECKPOINT_SINK_OWNED_HPP
#define REPLICANT_CHECKPOINT_SINK_OWNED_HPP

/// @file
/// replicant::sink_owned_checkpoint: the sink stores its checkpoint atomically with its data.

namespace replicant {

/**
 * Checkpoint policy: the sink owns the checkpoint.
 *
 * The sink persists each transaction and its commit LSN in one atomic unit (for example, one
 * database transaction that upserts the rows and updates a checkpoint row), returns that LSN from
 * `handle_transaction`, and returns the stored one from `checkpoint()` at every connect. The slot
 * is acknowledged only up to what `handle_transaction` returned. With a sink that skips
 * `commit_lsn <= checkpoint` and upserts by key, the result is exactly-once in effect.
 *
 * Requires of the sink: `checkpoint()` and `handle_transaction(const transaction&)`.
 */
struct sink_owned_checkpoint {};

}  // namespace replicant

#endif  // REPLICANT_CHECKPOINT_SINK_OWNED_HPP
