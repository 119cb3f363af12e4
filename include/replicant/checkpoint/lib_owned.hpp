// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CHECKPOINT_LIB_OWNED_HPP
#define REPLICANT_CHECKPOINT_LIB_OWNED_HPP

/// @file
/// replicant::lib_owned_checkpoint: the library keeps the checkpoint in a store, written after the
/// sink returned.

#include <replicant/checkpoint/store.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace replicant {

/// Batched checkpoint writes for @ref lib_owned_checkpoint. Delivery stays per transaction; the
/// checkpoint is written (and the slot acknowledged) once per batch.
struct checkpoint_batching {
  /// Write the checkpoint after this many delivered transactions (at least 1).
  std::size_t max_transactions = 100;
  /// ... or once the oldest delivered, unwritten transaction is this old (more than zero).
  std::chrono::milliseconds max_delay = std::chrono::seconds(1);
};

/**
 * Checkpoint policy: the library owns the checkpoint, for sinks that cannot store one atomically
 * with their data (files, object stores, message brokers, HTTP APIs).
 *
 * After `handle_transaction` returns, the pipeline writes the transaction's commit LSN to `store`
 * and only then acknowledges the slot. At every connect it resumes after the checkpoint read from
 * the store. The guarantee is **at-least-once**: a crash between the sink's return and the
 * checkpoint write delivers that transaction again (with `batch`, up to one batch of them), and
 * nothing is ever lost. It is not exactly-once: a sink that cannot skip what it already has will
 * hold a duplicate after such a crash.
 *
 * Store faults: a transient one (a lost connection, a server error, a failed file write) is retried
 * `max_retries` times, `retry_backoff` apart, then the pipeline halts `checkpoint_store_failed`;
 * a permanent one (@ref is_permanent_store_fault) halts at once. While the store is retried the
 * slot is not acknowledged past the last written checkpoint.
 *
 * Requires of the sink: `handle_transaction(const transaction&)` returning `result<void>` (or
 * `result<lsn>`, the commit LSN, as for @ref sink_owned_checkpoint). The sink must not declare
 * `checkpoint()`: the store's checkpoint is the only one.
 *
 * @tparam Store a @ref replicant::checkpoint_store "checkpoint_store", such as
 * @ref postgres_checkpoint_store, @ref file_checkpoint_store or the user's own.
 *
 * @par Example
 * @code
 * using policy = replicant::lib_owned_checkpoint<replicant::file_checkpoint_store>;
 * replicant::pipeline<replicant::pgoutput_decoder, policy, replicant::no_spill, my_sink> p{
 *     sink, policy{.store = replicant::file_checkpoint_store{"/var/lib/app/orders.checkpoint"}}, options};
 * @endcode
 */
template <class Store>
struct lib_owned_checkpoint {
  static_assert(checkpoint_store<Store>,
                "replicant: lib_owned_checkpoint<Store>: Store must provide `result<std::optional<lsn>> "
                "read(const slot_name&)` and `result<void> write(const slot_name&, lsn)` (see checkpoint_store)");

  /// Where the checkpoint lives.
  Store store;
  /// Batched checkpoint writes; none writes the checkpoint after every transaction.
  std::optional<checkpoint_batching> batch;
  /// Transient store faults retried before halting (0 halts on the first).
  std::uint32_t max_retries = 5;
  /// Pause between two attempts.
  std::chrono::milliseconds retry_backoff = std::chrono::seconds(1);
};

}  // namespace replicant

#endif  // REPLICANT_CHECKPOINT_LIB_OWNED_HPP
