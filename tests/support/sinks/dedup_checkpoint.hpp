// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_SINKS_DEDUP_CHECKPOINT_HPP
#define REPLICANT_TESTS_SUPPORT_SINKS_DEDUP_CHECKPOINT_HPP

/// @file
/// The checkpoint of a test sink that keeps it with its data (sink-owned), and the dedup a real
/// such sink does with it: a transaction at or below it took effect already and is skipped.

#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/transaction.hpp>

#include <optional>

namespace replicant::test {

/**
 * The commit LSN a sink last applied, kept with its data. A sink derives from it, so that `stored`
 * stays the sink's own member (tests read it), and in handle_transaction skips what
 * already_applied() says, does its work, then store()s the commit LSN. It holds no lock: a sink
 * that other threads read calls these under its own.
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe.
 */
struct dedup_checkpoint {
  std::optional<lsn> stored;  ///< the checkpoint: the commit LSN last applied, if any

  /// The checkpoint, as a sink's checkpoint() returns it.
  [[nodiscard]] auto checkpoint() const -> result<std::optional<lsn>> { return stored; }

  /// Whether @p t commits at or below the checkpoint: it took effect already, and is skipped.
  [[nodiscard]] auto already_applied(const transaction& t) const -> bool { return stored && t.commit_lsn() <= *stored; }

  /// Makes @p at (a commit LSN just applied, or a snapshot's consistent point) the checkpoint.
  auto store(lsn at) -> void { stored = at; }
};

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_SINKS_DEDUP_CHECKPOINT_HPP
