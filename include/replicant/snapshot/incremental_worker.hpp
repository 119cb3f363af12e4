// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SNAPSHOT_INCREMENTAL_WORKER_HPP
#define REPLICANT_SNAPSHOT_INCREMENTAL_WORKER_HPP

/// @file
/// The reader side of the incremental snapshot: a thread of its own, with an ordinary connection of
/// its own, that writes each chunk's low watermark, reads the chunk, hands it to the applier and
/// writes its high watermark, at most `max_pending` chunks ahead of the applier. It never calls the
/// sink: the applier delivers a chunk when the stream reaches its high watermark. Not API: its names
/// are replicant::detail. The header stands outside detail/ because the pipeline, which runs the
/// reader beside the stream, shares it, and a component's detail/ is its own.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/result.hpp>
#include <replicant/pq/connection.hpp>
#include <replicant/snapshot/detail/progress_codec.hpp>
#include <replicant/snapshot/detail/reconciler.hpp>
#include <replicant/snapshot/incremental.hpp>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>

namespace replicant::detail {

// How the reader failed: a halt, or a fault a new session can get past (a lost connection, a table
// whose shape changed under the read).
struct incremental_failure {
  bool halt = false;
  halt_reason reason = halt_reason::snapshot_failed;
  std::error_code cause{};
  std::string sqlstate;
  std::optional<table_name> table;
};

// SQLSTATEs of a read that is worth repeating: the chunk is discarded as contended.
[[nodiscard]] REPLICANT_DECL auto is_contention_sqlstate(std::string_view state) noexcept -> bool;

// SQLSTATEs of a table that changed under the reader: a new session lists the tables again.
[[nodiscard]] REPLICANT_DECL auto is_reshaped_sqlstate(std::string_view state) noexcept -> bool;

// The table a position is in: the first of @p tables at or after its name (tables are in byte
// order of schema and name). A table that is done, or one the position names that is gone, moves
// the position on to the next table's start; past the last table it is complete.
[[nodiscard]] REPLICANT_DECL auto normalize_position(snapshot_position p, std::span<const incremental_table> tables)
    -> std::pair<snapshot_position, std::size_t>;

/**
 * The reader thread and its hand-over queue.
 *
 * Made by the connect chain (which lists the tables through it and arms the snapshot), started by
 * the session, stopped when the session ends. The applier takes each chunk when its high watermark
 * arrives, and rewinds the reader after discarding a contended chunk.
 */
class incremental_worker {
 public:
  incremental_worker(const incremental_worker&) = delete;
  auto operator=(const incremental_worker&) -> incremental_worker& = delete;
  ~incremental_worker();

  /**
   * Connects (interruptible by @p stop_fd while connecting), and lists the tables of
   * @p publications. On failure the SQLSTATE of a server error is in `sqlstate`.
   */
  [[nodiscard]] static auto open(std::string_view conninfo, pq::connect_options copts,
                                 std::span<const std::string> publications, incremental_snapshot_options options,
                                 std::size_t max_pending, std::string& sqlstate)
      -> result<std::unique_ptr<incremental_worker>>;

  /// The tables, in the order they are read.
  [[nodiscard]] auto tables() const noexcept -> std::span<const incremental_table> { return reader_->tables(); }

  /// Starts the thread at @p from, writing watermarks with @p nonce.
  auto start(const snapshot_position& from, std::uint64_t nonce) -> void;

  /// Stops the thread (interrupting any command) and waits for it. Never throws.
  auto stop() noexcept -> void;

  /// The chunk of the given epoch and sequence number, if the reader handed it over (it always has
  /// by the time its high watermark is in the stream). Chunks before it are dropped.
  [[nodiscard]] auto take(std::uint32_t epoch, std::uint64_t seq) -> std::optional<snapshot_chunk>;

  /// Discards every chunk read ahead and has the reader start again at @p to, under @p epoch.
  auto rewind(const snapshot_position& to, std::uint32_t epoch) -> void;

  /// Why the reader stopped by itself, if it did.
  [[nodiscard]] auto failure() -> std::optional<incremental_failure>;

 private:
  incremental_worker(incremental_snapshot_options options, std::size_t max_pending);

  auto fail_with(incremental_failure f) -> void;

  // Classifies a failed command of the reader, which then stops.
  auto failed(std::error_code ec, std::size_t table) -> void;

  auto run(snapshot_position from) -> void;

  // Where the snapshot stands once @p rows (read at @p from, in table @p table) are applied.
  [[nodiscard]] auto advance(const snapshot_position& from, const incremental_chunk& rows, std::size_t table) const
      -> snapshot_position;

  incremental_snapshot_options options_;
  std::size_t max_pending_;
  int cancel_fd_ = -1;
  std::optional<pq::connection> conn_;
  std::optional<incremental_snapshot> reader_;
  std::uint64_t nonce_ = 0;
  std::thread thread_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<snapshot_chunk> pending_;       // read, waiting for their high watermark
  std::uint32_t epoch_ = 0;                  // the applier's current epoch
  std::optional<snapshot_position> rewind_;  // where the applier wants the reader to go on
  std::optional<incremental_failure> failure_;
  bool stopping_ = false;
};

// What the pipeline keeps of an incremental snapshot: the session's reader and reconciler, and,
// across sessions, what a reconnect must not reset.
struct incremental_state {
  std::unique_ptr<incremental_worker> worker;        // this session's reader (made by the connect chain)
  std::optional<incremental_reconciler> reconciler;  // this session's (made when streaming starts)
  snapshot_position start;                           // where this session's reader begins
  // Across sessions: when this process started or resumed the snapshot (for `completed`), and the
  // contention budget of the chunk being retried, which a reconnect neither spends nor refills.
  std::optional<std::chrono::steady_clock::time_point> began;
  std::string contended_at;  // the token of the position the contended chunk starts at
  std::uint32_t contended = 0;

  // A nonce no earlier run of any process is likely to have drawn.
  [[nodiscard]] static auto draw_nonce() -> std::uint64_t;
};

}  // namespace replicant::detail

// The bodies: in every unit header-only, in the one unit that includes <replicant/src.hpp> with
// REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/snapshot/impl/incremental_worker.hpp>
#endif

#endif  // REPLICANT_SNAPSHOT_INCREMENTAL_WORKER_HPP
