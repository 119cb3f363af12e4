// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PQ_IMPL_COPY_HPP
#define REPLICANT_PQ_IMPL_COPY_HPP

// Out-of-line bodies of replicant::pq::copy_out (starting a copy, reading its rows, abandoning and
// finishing it) and of the quiet clean-up after a failure (exec_quietly, rollback_quietly).
// Included at the bottom of <replicant/pq/copy.hpp> (which it includes nothing of back); with
// REPLICANT_SEPARATE_COMPILATION only by <replicant/pq/src.hpp>, so that they are compiled once.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>
#include <replicant/pq/connection.hpp>

#include <libpq-fe.h>
#include <poll.h>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace replicant::pq {

REPLICANT_DECL auto copy_out::start(connection& conn, const std::string& command, int cancel_fd) -> result<copy_out> {
  auto r = conn.exec(command);
  if (!r) return unexpected(r.error());
  // Another kind of statement ran to completion: not what the caller meant. (A `COPY ... FROM
  // STDIN` would leave the connection waiting for data; the commands replicant builds never are.)
  if (PQresultStatus(r->native_handle()) != PGRES_COPY_OUT) return fail(errc::protocol_violation);
  return copy_out{conn, cancel_fd};
}

REPLICANT_DECL copy_out::copy_out(copy_out&& other) noexcept
    : conn_(std::exchange(other.conn_, nullptr)),
      row_(std::exchange(other.row_, nullptr)),
      cancel_fd_(other.cancel_fd_),
      active_(std::exchange(other.active_, false)) {}

REPLICANT_DECL auto copy_out::operator=(copy_out&& other) noexcept -> copy_out& {
  if (this != &other) {
    static_cast<void>(abandon());
    release_row();
    conn_ = std::exchange(other.conn_, nullptr);
    row_ = std::exchange(other.row_, nullptr);
    cancel_fd_ = other.cancel_fd_;
    active_ = std::exchange(other.active_, false);
  }
  return *this;
}

REPLICANT_DECL copy_out::~copy_out() {
  static_cast<void>(abandon());
  release_row();
}

REPLICANT_DECL auto copy_out::next() -> result<std::optional<std::string_view>> {
  release_row();
  if (!active_) return std::optional<std::string_view>{};
  PGconn* const h = conn_->native_handle();
  for (;;) {
    char* buffer = nullptr;
    const int n = PQgetCopyData(h, &buffer, 1);
    if (n > 0) {
      row_ = buffer;
      return std::optional<std::string_view>{std::string_view{buffer, static_cast<std::size_t>(n)}};
    }
    if (n == 0) {
      // Nothing complete is buffered: wait for the socket, or for a stop request.
      const auto forever = std::chrono::steady_clock::time_point::max();
      if (auto w = detail::wait_for(conn_->socket(), POLLIN, cancel_fd_, forever); !w) {
        if (w.error() == errc::cancelled) {
          static_cast<void>(abandon());
          return fail(errc::cancelled);
        }
        active_ = false;
        return unexpected(w.error());
      }
      if (PQconsumeInput(h) == 0) {
        active_ = false;
        return fail(errc::connection_failed);
      }
      continue;
    }
    // -1: the copy is over (successfully or not: the final result says); -2: libpq failed.
    active_ = false;
    if (auto done = finish(std::chrono::steady_clock::time_point::max()); !done) return unexpected(done.error());
    if (n == -2) return fail(conn_->is_open() ? errc::server_error : errc::connection_failed);
    return std::optional<std::string_view>{};
  }
}

REPLICANT_DECL auto copy_out::abandon() noexcept -> bool {
  release_row();
  if (!active_) return conn_ == nullptr || conn_->is_open();
  active_ = false;
  PGconn* const h = conn_->native_handle();
  // PQcancel opens its own short connection to deliver the request; its error text is not kept.
  if (PGcancel* cancel = PQgetCancel(h)) {
    char ignored[256];
    static_cast<void>(PQcancel(cancel, ignored, static_cast<int>(sizeof ignored)));
    PQfreeCancel(cancel);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (;;) {
    char* buffer = nullptr;
    const int n = PQgetCopyData(h, &buffer, 1);
    if (n > 0) {
      PQfreemem(buffer);
      continue;
    }
    if (n < 0) break;
    if (!detail::wait_for(conn_->socket(), POLLIN, -1, deadline) || PQconsumeInput(h) == 0) return false;
  }
  // The cancellation ends the command with an error (57014) unless the copy had already
  // finished; either way this is not a failure the caller asked about, so it is not kept.
  const bool usable = finish(deadline).has_value() || conn_->is_open();
  conn_->remember_error(nullptr);
  return usable && PQtransactionStatus(h) != PQTRANS_ACTIVE;
}

REPLICANT_DECL auto copy_out::release_row() noexcept -> void {
  if (row_ != nullptr) PQfreemem(row_);
  row_ = nullptr;
}

REPLICANT_DECL auto copy_out::finish(std::chrono::steady_clock::time_point deadline) -> result<void> {
  PGconn* const h = conn_->native_handle();
  bool failed = false;
  for (;;) {
    while (PQisBusy(h) != 0) {
      if (auto w = detail::wait_for(conn_->socket(), POLLIN, -1, deadline); !w) return unexpected(w.error());
      if (PQconsumeInput(h) == 0) return fail(errc::connection_failed);
    }
    PGresult* res = PQgetResult(h);
    if (res == nullptr) break;
    if (PQresultStatus(res) != PGRES_COMMAND_OK && !failed) {
      conn_->remember_error(res);
      failed = true;
    }
    PQclear(res);
  }
  if (!conn_->is_open()) return fail(errc::connection_failed);
  if (failed) return fail(errc::server_error);
  return {};
}

namespace detail {

REPLICANT_DECL auto exec_quietly(connection& conn, const char* sql) noexcept -> bool {
  PGconn* const h = conn.native_handle();
  if (!conn.is_open() || PQsendQuery(h, sql) == 0) return false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (int f; (f = PQflush(h)) != 0;) {
    if (f < 0 || !wait_for(conn.socket(), POLLIN | POLLOUT, -1, deadline) || PQconsumeInput(h) == 0) return false;
  }
  bool ok = true;
  for (;;) {
    while (PQisBusy(h) != 0) {
      if (!wait_for(conn.socket(), POLLIN, -1, deadline) || PQconsumeInput(h) == 0) return false;
    }
    PGresult* res = PQgetResult(h);
    if (res == nullptr) break;
    ok = ok && PQresultStatus(res) == PGRES_COMMAND_OK;
    PQclear(res);
  }
  return ok && conn.is_open();
}

REPLICANT_DECL auto rollback_quietly(connection& conn) noexcept -> bool {
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!conn.is_open()) return false;
    if (PQtransactionStatus(conn.native_handle()) == PQTRANS_IDLE) return true;
    static_cast<void>(exec_quietly(conn, "ROLLBACK"));
  }
  return conn.is_open() && PQtransactionStatus(conn.native_handle()) == PQTRANS_IDLE;
}

}  // namespace detail

}  // namespace replicant::pq

#endif  // REPLICANT_PQ_IMPL_COPY_HPP
