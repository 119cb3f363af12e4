// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SNAPSHOT_IMPL_INCREMENTAL_WORKER_HPP
#define REPLICANT_SNAPSHOT_IMPL_INCREMENTAL_WORKER_HPP

// Out-of-line bodies of replicant::detail::incremental_worker (the incremental snapshot's reader
// thread) and of the helpers beside it. Included at the bottom of
// <replicant/snapshot/incremental_worker.hpp> (which it includes nothing of back); with
// REPLICANT_SEPARATE_COMPILATION only by <replicant/snapshot/src.hpp>, which compiles them once.

#include <replicant/core/detail/config.hpp>
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
#include <cstddef>
#include <cstdint>
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

namespace replicant::detail {

[[nodiscard]] REPLICANT_DECL auto is_contention_sqlstate(std::string_view state) noexcept -> bool {
  return state == "40001"      // serialization_failure (also a standby's recovery conflict)
         || state == "40P01"   // deadlock_detected
         || state == "55P03";  // lock_not_available
}

[[nodiscard]] REPLICANT_DECL auto is_reshaped_sqlstate(std::string_view state) noexcept -> bool {
  return state == "42P01"      // undefined_table
         || state == "42703";  // undefined_column
}

[[nodiscard]] REPLICANT_DECL auto normalize_position(snapshot_position p, std::span<const incremental_table> tables)
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

REPLICANT_DECL incremental_worker::incremental_worker(incremental_snapshot_options options, std::size_t max_pending)
    : options_(options), max_pending_(max_pending), cancel_fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

REPLICANT_DECL incremental_worker::~incremental_worker() {
  stop();
  if (cancel_fd_ >= 0) ::close(cancel_fd_);
}

REPLICANT_DECL auto incremental_worker::open(std::string_view conninfo, pq::connect_options copts,
                                             std::span<const std::string> publications,
                                             incremental_snapshot_options options, std::size_t max_pending,
                                             std::string& sqlstate) -> result<std::unique_ptr<incremental_worker>> {
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

REPLICANT_DECL auto incremental_worker::start(const snapshot_position& from, std::uint64_t nonce) -> void {
  nonce_ = nonce;
  thread_ = std::thread{[this, from] { run(from); }};
}

REPLICANT_DECL auto incremental_worker::stop() noexcept -> void {
  {
    const std::lock_guard lock{mutex_};
    stopping_ = true;
  }
  changed_.notify_all();
  const std::uint64_t one = 1;
  if (cancel_fd_ >= 0) static_cast<void>(::write(cancel_fd_, &one, sizeof one));
  if (thread_.joinable()) thread_.join();
}

REPLICANT_DECL auto incremental_worker::take(std::uint32_t epoch, std::uint64_t seq) -> std::optional<snapshot_chunk> {
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

REPLICANT_DECL auto incremental_worker::rewind(const snapshot_position& to, std::uint32_t epoch) -> void {
  {
    const std::lock_guard lock{mutex_};
    pending_.clear();
    epoch_ = epoch;
    rewind_ = to;
  }
  changed_.notify_all();
}

REPLICANT_DECL auto incremental_worker::failure() -> std::optional<incremental_failure> {
  const std::lock_guard lock{mutex_};
  return failure_;
}

REPLICANT_DECL auto incremental_worker::fail_with(incremental_failure f) -> void {
  const std::lock_guard lock{mutex_};
  if (!stopping_ && !failure_) failure_ = std::move(f);
}

REPLICANT_DECL auto incremental_worker::failed(std::error_code ec, std::size_t table) -> void {
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

REPLICANT_DECL auto incremental_worker::run(snapshot_position from) -> void {
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

REPLICANT_DECL auto incremental_worker::advance(const snapshot_position& from, const incremental_chunk& rows,
                                                std::size_t table) const -> snapshot_position {
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

REPLICANT_DECL auto incremental_state::draw_nonce() -> std::uint64_t {
  std::random_device device;
  const auto now = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return ((static_cast<std::uint64_t>(device()) << 32U) | device()) ^ now;
}

}  // namespace replicant::detail

#endif  // REPLICANT_SNAPSHOT_IMPL_INCREMENTAL_WORKER_HPP
