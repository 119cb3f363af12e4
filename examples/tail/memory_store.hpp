// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_TAIL_MEMORY_STORE_HPP
#define REPLICANT_EXAMPLES_TAIL_MEMORY_STORE_HPP

/// @file
/// replicant-tail's checkpoint store when no `--checkpoint-file` is given: the last written commit
/// LSN, kept in memory for the life of the process.

#include <replicant/checkpoint/store.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>

#include <optional>

namespace replicant::examples::tail {

/**
 * A @ref replicant::checkpoint_store that keeps the checkpoint in memory only.
 *
 * What it is for: the replication pipeline reads its store at every (re)connect and resumes after
 * what it finds, skipping transactions the server sends again at or below it. Within one run of
 * replicant-tail this store bridges reconnects (a lost connection, a server restart), so nothing
 * is printed twice or lost across them, exactly as with a checkpoint file.
 *
 * What it is not: it does not survive the process. A new run starts with no checkpoint, so the
 * pipeline's start-mode guard asks for `--go-forward-only`, which then means "continue from the
 * slot's acknowledged position" (`confirmed_flush_lsn`). The slot is acknowledged only up to what
 * was written, so nothing is skipped; but a server that re-sends acknowledged transactions after a
 * crash (PostgreSQL 16 and older can) prints them again, since nothing remembers them. Use
 * `--checkpoint-file` when that matters.
 *
 * It never fails, and it serves one slot: the slot argument is not looked at.
 *
 * @par Example
 * @code
 * using policy = replicant::lib_owned_checkpoint<memory_checkpoint_store>;
 * replicant::pgoutput_pipeline<jsonl_sink, policy> p{
 *     sink, policy{.store = memory_checkpoint_store{}}, options};
 * @endcode
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe (the pipeline calls it from its applier thread
 * only).
 */
class memory_checkpoint_store {
 public:
  /// The checkpoint written last in this process, or none. Never fails; never throws.
  [[nodiscard]] auto read(const slot_name& /*slot*/) const noexcept -> result<std::optional<lsn>> { return stored_; }

  /// Makes @p at the checkpoint. Never fails; never throws.
  [[nodiscard]] auto write(const slot_name& /*slot*/, lsn at) noexcept -> result<void> {
    stored_ = at;
    return {};
  }

 private:
  std::optional<lsn> stored_;
};

static_assert(checkpoint_store<memory_checkpoint_store>);

}  // namespace replicant::examples::tail

#endif  // REPLICANT_EXAMPLES_TAIL_MEMORY_STORE_HPP
