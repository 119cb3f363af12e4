// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Each of the library's checkpoint policies checks the sink (and, for the incremental snapshot, the
// store) member by member with its public check_sink<Sink>(): each case leaves one member out, or
// declares it with other parameters (_misdeclared), or with another return type (_wrong_return),
// and the policy says which of the three it is. The pipeline evaluates these checklists (the
// sink_*, lib_*, deferred_* and batch_* cases prove it through a pipeline); these cases ask them
// directly, which costs a fraction of a pipeline's compile.
// expect deferred_no_checkpoint: replicant: deferred_checkpoint: Sink must provide `result<std::optional<lsn>> checkpoint\(\)` \(returns the commit LSN it last knows durable, or std::nullopt; called on every connect\)
// expect deferred_no_handle_transaction: replicant: deferred_checkpoint: Sink must provide `result<void> handle_transaction\(const transaction&, confirmation\)` \(takes the transaction and returns at once; confirms later\)
// expect deferred_handle_transaction_wrong_return: replicant: deferred_checkpoint: Sink::handle_transaction has the wrong return type: it must return `result<void>` \(it returns at once; the confirmation says when the transaction is durable\)
// expect lib_owned_no_handle_transaction: replicant: lib_owned_checkpoint: Sink must provide `result<void> handle_transaction\(const transaction&\)` \(called once per committed transaction; the library writes the checkpoint after it returns\)
// expect lib_owned_handle_transaction_misdeclared: replicant: lib_owned_checkpoint: Sink::handle_transaction must be `result<void> handle_transaction\(const transaction&\)` \(it cannot be called with a `const transaction&`\)
// expect lib_owned_handle_transaction_wrong_return: replicant: lib_owned_checkpoint: Sink::handle_transaction has the wrong return type: it must return `result<void>` \(or `result<lsn>`, the commit LSN it persisted\)
// expect lib_owned_incremental_no_handle_snapshot: replicant: enable_incremental_snapshot: Sink must provide `result<void> handle_snapshot\(const snapshot_batch&, const snapshot_context&\)` \(receives each chunk of the snapshot\)
// expect lib_owned_incremental_store_without_progress: replicant: enable_incremental_snapshot with lib_owned_checkpoint<Store>: Store must provide `read_progress\(const slot_name&\)` and `write_progress\(const slot_name&, std::string_view\)` \(see progress_store\)
// expect sink_owned_incremental_no_handle_snapshot: replicant: enable_incremental_snapshot: Sink must provide `result<void> handle_snapshot\(const snapshot_batch&, const snapshot_context&\)` \(receives each chunk of the snapshot\)
// expect sink_owned_checkpoint_misdeclared: replicant: Sink::checkpoint must be `result<std::optional<lsn>> checkpoint\(\)` \(it takes no arguments\)
// expect sink_owned_handle_transaction_misdeclared: replicant: Sink::handle_transaction must be `result<lsn> handle_transaction\(const transaction&\)` \(it cannot be called with a `const transaction&`\)
// expect batches_no_checkpoint: replicant: Sink must provide `result<std::optional<lsn>> checkpoint\(\)` \(returns the commit LSN of the last batch it persisted, or std::nullopt; called on every connect to resume after it\)
// expect batches_handle_batch_misdeclared: replicant: Sink::handle_batch must be `result<lsn> handle_batch\(std::span<const transaction>\)` \(it cannot be called with a `std::span<const transaction>`\)
// expect batches_handle_batch_wrong_return: replicant: Sink::handle_batch has the wrong return type: it must return `result<lsn>` \(the highest commit LSN of the batch\)
#include <replicant/checkpoint/deferred.hpp>
#include <replicant/checkpoint/lib_owned.hpp>
#include <replicant/checkpoint/sink_owned.hpp>
#include <replicant/checkpoint/sink_owned_batches.hpp>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace compile_fail {

using replicant::lsn;
using replicant::result;

// A store in memory that keeps the incremental snapshot's progress too (replicant::progress_store).
struct memory_store {
  auto read(const replicant::slot_name&) -> result<std::optional<lsn>> { return at; }
  auto write(const replicant::slot_name&, lsn to) -> result<void> {
    at = to;
    return {};
  }
#ifndef REPLICANT_COMPILE_FAIL_lib_owned_incremental_store_without_progress
  auto read_progress(const replicant::slot_name&) -> result<std::optional<std::string>> { return progress; }
  auto write_progress(const replicant::slot_name&, std::string_view token) -> result<void> {
    progress = std::string{token};
    return {};
  }
#endif
  std::optional<lsn> at;
  std::optional<std::string> progress;
};

// Library-owned checkpoint, with the incremental snapshot.
struct lib_sink {
#if defined(REPLICANT_COMPILE_FAIL_lib_owned_handle_transaction_misdeclared)
  auto handle_transaction(replicant::transaction&) -> result<void> { return {}; }
#elif defined(REPLICANT_COMPILE_FAIL_lib_owned_handle_transaction_wrong_return)
  auto handle_transaction(const replicant::transaction&) -> bool { return true; }
#elif !defined(REPLICANT_COMPILE_FAIL_lib_owned_no_handle_transaction)
  auto handle_transaction(const replicant::transaction&) -> result<void> { return {}; }
#endif
#ifndef REPLICANT_COMPILE_FAIL_lib_owned_incremental_no_handle_snapshot
  auto handle_snapshot(const replicant::snapshot_batch&, const replicant::snapshot_context&) -> result<void> {
    return {};
  }
#endif
};

// Sink-owned checkpoint, with the incremental snapshot: the sink keeps the progress.
struct owned_sink {
#ifdef REPLICANT_COMPILE_FAIL_sink_owned_checkpoint_misdeclared
  auto checkpoint(const replicant::slot_name&) -> result<std::optional<lsn>> { return std::optional<lsn>{}; }
#else
  auto checkpoint() -> result<std::optional<lsn>> { return std::optional<lsn>{}; }
#endif
#ifdef REPLICANT_COMPILE_FAIL_sink_owned_handle_transaction_misdeclared
  auto handle_transaction(replicant::transaction&& t) -> result<lsn> { return t.commit_lsn(); }
#else
  auto handle_transaction(const replicant::transaction& t) -> result<lsn> { return t.commit_lsn(); }
#endif
#ifndef REPLICANT_COMPILE_FAIL_sink_owned_incremental_no_handle_snapshot
  auto handle_snapshot(const replicant::snapshot_batch&, const replicant::snapshot_context&) -> result<void> {
    return {};
  }
#endif
  auto snapshot_progress() -> result<std::optional<std::string>> { return std::optional<std::string>{}; }
};

// Deferred checkpoint: confirms each transaction later.
struct deferred_sink {
#ifndef REPLICANT_COMPILE_FAIL_deferred_no_checkpoint
  auto checkpoint() -> result<std::optional<lsn>> { return std::optional<lsn>{}; }
#endif
#if defined(REPLICANT_COMPILE_FAIL_deferred_handle_transaction_wrong_return)
  auto handle_transaction(const replicant::transaction& t, replicant::confirmation c) -> result<lsn> {
    c.confirm();
    return t.commit_lsn();
  }
#elif !defined(REPLICANT_COMPILE_FAIL_deferred_no_handle_transaction)
  auto handle_transaction(const replicant::transaction&, replicant::confirmation c) -> result<void> {
    c.confirm();
    return {};
  }
#endif
};

// Sink-owned batches.
struct batch_sink {
#ifndef REPLICANT_COMPILE_FAIL_batches_no_checkpoint
  auto checkpoint() -> result<std::optional<lsn>> { return std::optional<lsn>{}; }
#endif
#if defined(REPLICANT_COMPILE_FAIL_batches_handle_batch_misdeclared)
  auto handle_batch(const std::vector<replicant::transaction>& txns) -> result<lsn> { return txns.back().commit_lsn(); }
#elif defined(REPLICANT_COMPILE_FAIL_batches_handle_batch_wrong_return)
  auto handle_batch(std::span<const replicant::transaction> txns) -> result<void> {
    static_cast<void>(txns);
    return {};
  }
#else
  auto handle_batch(std::span<const replicant::transaction> txns) -> result<lsn> { return txns.back().commit_lsn(); }
#endif
};

}  // namespace compile_fail

template <>
inline constexpr bool replicant::enable_incremental_snapshot<compile_fail::lib_sink> = true;
template <>
inline constexpr bool replicant::enable_incremental_snapshot<compile_fail::owned_sink> = true;

static_assert(replicant::deferred_checkpoint::check_sink<compile_fail::deferred_sink>());
static_assert(replicant::lib_owned_checkpoint<compile_fail::memory_store>::check_sink<compile_fail::lib_sink>());
static_assert(replicant::sink_owned_checkpoint::check_sink<compile_fail::owned_sink>());
static_assert(replicant::sink_owned_batches::check_sink<compile_fail::batch_sink>());
