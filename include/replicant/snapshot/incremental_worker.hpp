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

#include <replicant/core/error.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/result.hpp>
#include <replicant/pq/connection.hpp>
#include <replicant/snapshot/detail/progress_codec.hpp>
#include <replicant/snapshot/detail/reconciler.hpp>
#include <replicant/snapshot/incremental.hpp>

#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

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
[[nodiscard]] inline auto is_contention_sqlstate(std::string_view state) noexcept -> bool {
  return state == "40001"      // serialization_failure (also a standby's recovery conflict)
         || state == "40P01"   // deadlock_detected
         || state == "55P03";  // lock_not_available
}

// SQLSTATEs of a table that changed under the reader: a new session lists the tables again.
[[nodiscard]] inline auto is_reshaped_sqlstate(std::string_view state) noexcept -> bool {
  return state == "42P01"      // undefined_table
         || state == "42703";  // undefined_column
}

// The table a position is in: the first of @p tables at or after its name (tables are in byte
// order of schema and name). A table that is done, or one the position names that is gone, moves
// the position on to the next table's start; past the last table it is complete.
[[nodiscard]] inline auto normalize_position(snapshot_position p, std::span<const incremental_table> tables)
    -> std::pair<snapshot_position, std::size_t> {
  if (p.at != snapshot_position::phase::table) {
    if (p.at == snapshot_position::phase::complete) return {p, tables.size()};
    p = snapshot_position{snapshot_position::phase::table, {}, {}, false, {}, p.rows, 0};  // arming done: the start
  }
  std::size_t i = 0;
  const auto name_of = [&](std::size_t k) {
    return std::pair<std::string_view, std::string_view>{tables[k].relation->schema, tables[k].relation->table};
  };
  const std::pair<std::string_view, std::string_view> wanted{p.schema, p.table};
  while (i < tables.size() && name_of(i) < wanted) ++i;
  if (i < tables.size() && name_of(i) == wanted && !p.table_done) return {p, i};
  if (i < tables.size() && name_of(i) == wanted) ++i;  // done: the next one
  if (i == tables.size()) {
    return {snapshot_position{snapshot_position::phase::complete, {}, {}, false, {}, p.rows, 0}, i};
  }
  return {
      snapshot_position{
          snapshot_position::phase::table, tables[i].relation->schema, tables[i].relation->table, false, {}, p.rows, 0},
      i};
}

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
  ~incremental_worker() {
    stop();
    if (cancel_fd_ >= 0) ::close(cancel_fd_);
  }

  /**
   * Connects (interruptible by @p stop_fd while connecting), and lists the tables of
   * @p publications. On failure the SQLSTATE of a server error is in `sqlstate`.
   */
  [[nodiscard]] static auto open(std::string_view conninfo, pq::connect_options copts,
                                 std::span<const std::string> publications, incremental_snapshot_options options,
                                 std::size_t max_pending, std::string& sqlstate)
      -> result<std::unique_ptr<incremental_worker>> {
    std::unique_ptr<incremental_worker> w{new incremental_worker{options, max_pending}};
    if (w->cancel_fd_ < 0) return fail(errc::io_failed);
    copts.command_cancel_fd = w->cancel_fd_;
    w->options_.cancel_fd = w->cancel_fd_;
    auto conn = pq::connection::open(conninfo, pq::session_kind::normal, copts);
    if (!conn) return unexpected(conn.error());
    w->conn_.emplace(std::move(*conn));
    auto reader = incremental_snapshot::open(*w->conn_, publications, w->options_);
    if (!reader) {
      sqlstate = w->conn_->last_error().sqlstate;
      return unexpected(reader.error());
    }
    w->reader_.emplace(std::move(*reader));
    return w;
  }

  /// The tables, in the order they are read.
  [[nodiscard]] auto tables() const noexcept -> std::span<const incremental_table> { return reader_->tables(); }

  /// Starts the thread at @p from, writing watermarks with @p nonce.
  auto start(const snapshot_position& from, std::uint64_t nonce) -> void {
    nonce_ = nonce;
    thread_ = std::thread{[this, from] { run(from); }};
  }

  /// Stops the thread (interrupting any command) and waits for it. Never throws.
  auto stop() noexcept -> void {
    {
      const std::lock_guard lock{mutex_};
      stopping_ = true;
    }
    changed_.notify_all();
    const std::uint64_t one = 1;
    if (cancel_fd_ >= 0) static_cast<void>(::write(cancel_fd_, &one, sizeof one));
    if (thread_.joinable()) thread_.join();
  }

  /// The chunk of the given epoch and sequence number, if the reader handed it over (it always has
  /// by the time its high watermark is in the stream). Chunks before it are dropped.
  [[nodiscard]] auto take(std::uint32_t epoch, std::uint64_t seq) -> std::optional<snapshot_chunk> {
    std::optional<snapshot_chunk> found;
    {
      const std::lock_guard lock{mutex_};
      while (!pending_.empty() && (pending_.front().epoch != epoch || pending_.front().seq < seq)) {
        pending_.pop_front();
      }
      if (!pending_.empty() && pending_.front().seq == seq) {
        found.emplace(std::move(pending_.front()));
        pending_.pop_front();
      }
    }
    changed_.notify_all();
    return found;
  }

  /// Discards every chunk read ahead and has the reader start again at @p to, under @p epoch.
  auto rewind(const snapshot_position& to, std::uint32_t epoch) -> void {
    {
      const std::lock_guard lock{mutex_};
      pending_.clear();
      epoch_ = epoch;
      rewind_ = to;
    }
    changed_.notify_all();
  }

  /// Why the reader stopped by itself, if it did.
  [[nodiscard]] auto failure() -> std::optional<incremental_failure> {
    const std::lock_guard lock{mutex_};
    return failure_;
  }

 private:
  incremental_worker(incremental_snapshot_options options, std::size_t max_pending)
      : options_(options), max_pending_(max_pending), cancel_fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

  auto fail_with(incremental_failure f) -> void {
    const std::lock_guard lock{mutex_};
    if (!stopping_ && !failure_) failure_ = std::move(f);
  }

  // Classifies a failed command of the reader, which then stops.
  auto failed(std::error_code ec, std::size_t table) -> void {
    if (ec == errc::cancelled) return;  // stop() interrupted it
    incremental_failure f;
    f.cause = ec;
    f.sqlstate = conn_->last_error().sqlstate;
    if (table < tables().size()) {
      f.table = table_name{tables()[table].relation->schema, tables()[table].relation->table};
    }
    if (ec == errc::connection_failed || (ec == errc::server_error && is_reshaped_sqlstate(f.sqlstate))) {
      f.halt = false;  // a new session (new connection, tables listed again) gets past it
    } else {
      f.halt = true;
    }
    fail_with(std::move(f));
  }

  auto run(snapshot_position from) -> void {
    snapshot_position position;
    std::size_t table = 0;
    std::tie(position, table) = normalize_position(std::move(from), tables());
    std::uint32_t epoch = 0;
    std::uint64_t seq = 0;
    bool wait_for_rewind = false;  // after a contended read: until the applier discards it
    for (;;) {
      {
        std::unique_lock lock{mutex_};
        changed_.wait(lock, [&] {
          const bool done = position.at == snapshot_position::phase::complete;
          return stopping_ || rewind_.has_value() || (!wait_for_rewind && !done && pending_.size() < max_pending_);
        });
        if (stopping_) return;
        if (rewind_) {
          std::tie(position, table) = normalize_position(std::move(*rewind_), tables());
          rewind_.reset();
          epoch = epoch_;
          wait_for_rewind = false;
          continue;
        }
      }
      const incremental_table& t = tables()[table];
      const std::uint32_t oid = t.relation->oid;
      ++seq;
      if (auto low = reader_->emit_watermark(format_watermark({nonce_, epoch, seq, true, oid})); !low) {
        return failed(low.error(), table);
      }
      snapshot_chunk chunk;
      chunk.relation = t.relation;
      chunk.epoch = epoch;
      chunk.seq = seq;
      chunk.keyed = t.keyed();
      chunk.table_index = table;
      chunk.table_count = tables().size();
      chunk.start = position;
      snapshot_position next;
      if (auto read = reader_->read_chunk(table, position.key, chunk.rows); !read) {
        if (read.error() != errc::server_error || !is_contention_sqlstate(conn_->last_error().sqlstate)) {
          return failed(read.error(), table);
        }
        chunk.read_contended = true;
        wait_for_rewind = true;
      } else if (chunk.rows.reshaped) {
        // The table changed under the reader: a new session lists the tables again.
        incremental_failure f;
        f.table = table_name{t.relation->schema, t.relation->table};
        return fail_with(std::move(f));
      } else {
        chunk.snapshot = xid_snapshot::parse(chunk.rows.snapshot);
        if (!chunk.snapshot) return failed(make_error_code(errc::protocol_violation), table);
        chunk.end = advance(position, chunk.rows, table);
        next = chunk.end;
      }
      {
        const std::lock_guard lock{mutex_};
        if (epoch != epoch_) continue;  // rewound meanwhile: the chunk is stale
        pending_.push_back(std::move(chunk));
      }
      // The chunk is in the queue before its high watermark can reach the stream.
      if (auto high = reader_->emit_watermark(format_watermark({nonce_, epoch, seq, false, oid})); !high) {
        return failed(high.error(), table);
      }
      if (!wait_for_rewind) {
        const std::lock_guard lock{mutex_};
        if (epoch == epoch_) std::tie(position, table) = normalize_position(std::move(next), tables());
      }
    }
  }

  // Where the snapshot stands once @p rows (read at @p from, in table @p table) are applied.
  [[nodiscard]] auto advance(const snapshot_position& from, const incremental_chunk& rows, std::size_t table) const
      -> snapshot_position {
    snapshot_position p = from;
    p.rows += rows.rows();
    p.table_rows += rows.rows();
    if (!rows.keys.empty()) p.key = rows.keys.back();
    if (rows.last_for_table) {
      p.table_done = true;
      if (table + 1 == tables().size()) {
        p = snapshot_position{snapshot_position::phase::complete, {}, {}, false, {}, p.rows, 0};
      }
    }
    return p;
  }

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
  [[nodiscard]] static auto draw_nonce() -> std::uint64_t {
    std::random_device device;
    const auto now = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    return ((static_cast<std::uint64_t>(device()) << 32U) | device()) ^ now;
  }
};

}  // namespace replicant::detail

#endif  // REPLICANT_SNAPSHOT_INCREMENTAL_WORKER_HPP
