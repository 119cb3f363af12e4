// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PQ_COPY_HPP
#define REPLICANT_PQ_COPY_HPP

/// @file
/// replicant::pq::copy_out: the rows of one `COPY ... TO STDOUT`, read one at a time from a
/// replicant::pq::connection, with value-free failures. One of the headers that include <libpq-fe.h>.

#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>
#include <replicant/pq/connection.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace replicant::pq {

/**
 * Reads the data rows of one `COPY ... TO STDOUT` command.
 *
 * The server sends each row as one CopyData message (PROTOCOL.md §6.2); @ref next hands them out
 * in order, as they are, then reports the end once the command's final status has been read. This
 * is the cheapest way to read a table: nothing is materialised, and memory stays at one row.
 *
 * Waiting blocks the calling thread (with `poll`, so a cancel descriptor can interrupt it). While
 * a copy is in progress the connection can run nothing else; destroying an unfinished reader
 * cancels the command and drains what the server still sends, so the connection can be used again
 * (see @ref abandon).
 *
 * Failures are value-free, as everywhere in pq/: a server error keeps only its SQLSTATE (in the
 * connection's `last_error()`), never the message text, which can quote row values.
 *
 * @par Example
 * @code
 * auto copy = replicant::pq::copy_out::start(conn, "COPY (SELECT id, name FROM ONLY public.t) TO STDOUT");
 * if (!copy) return copy.error();
 * for (;;) {
 *   auto row = copy->next();
 *   if (!row) return row.error();
 *   if (!*row) break;                 // the end; the command succeeded
 *   consume(**row);                   // one text-format row, with its trailing newline
 * }
 * @endcode
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe; and the connection is in use until the reader is
 * finished or destroyed.
 */
class copy_out {
 public:
  /**
   * Sends @p command, which must start a `COPY ... TO STDOUT`, on @p conn.
   *
   * @param conn an idle connection; it must outlive the reader.
   * @param command one `COPY { table | (query) } TO STDOUT` statement.
   * @param cancel_fd a descriptor that, once readable, makes a waiting @ref next give up with
   *        `errc::cancelled` (-1: none).
   * @return the reader; `errc::server_error` (SQLSTATE in `conn.last_error()`),
   *         `errc::connection_failed`, or `errc::protocol_violation` when the command did not start
   *         a copy out (it was another kind of statement).
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] static auto start(connection& conn, const std::string& command, int cancel_fd = -1) -> result<copy_out>;

  copy_out(const copy_out&) = delete;
  auto operator=(const copy_out&) -> copy_out& = delete;

  /// Takes over @p other's copy; @p other is left finished. Never throws.
  copy_out(copy_out&& other) noexcept;

  /// Abandons the current copy (see @ref abandon) and takes over @p other's. Never throws.
  auto operator=(copy_out&& other) noexcept -> copy_out&;

  /// Abandons an unfinished copy (see @ref abandon). Never throws.
  ~copy_out();

  /**
   * The next row, as the server sent it (text format: the fields and a trailing newline).
   *
   * @return the row, a view valid until the next call or the reader's destruction; or no row once
   *         the copy ended and the server reported success. Errors: `errc::server_error` (the
   *         command failed midway, e.g. an expression raised an error; SQLSTATE in the
   *         connection's `last_error()`), `errc::connection_failed`, `errc::cancelled` (the cancel
   *         descriptor fired; the copy is abandoned). After the end or an error, every call returns
   *         no row.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto next() -> result<std::optional<std::string_view>>;

  /// True until @ref next reported the end or an error.
  [[nodiscard]] auto active() const noexcept -> bool { return active_; }

  /**
   * Stops an unfinished copy: asks the server to cancel the command, then reads and discards what
   * it still sends, for at most five seconds. Nothing happens when the copy already ended.
   *
   * @return true when the connection is idle and usable again; false when it is lost or the
   *         server did not finish in time (then close the connection).
   * @par Exceptions
   * Never throws.
   */
  auto abandon() noexcept -> bool;

 private:
  copy_out(connection& conn, int cancel_fd) noexcept : conn_(&conn), cancel_fd_(cancel_fd), active_(true) {}

  auto release_row() noexcept -> void;

  // Reads the results that follow the end of the copy data (the command's status, then null).
  [[nodiscard]] auto finish(std::chrono::steady_clock::time_point deadline) -> result<void>;

  connection* conn_ = nullptr;
  char* row_ = nullptr;
  int cancel_fd_ = -1;
  bool active_ = false;
};

namespace detail {

// Runs @p sql and discards its results without touching the connection's last_error(): for the
// clean-up after a failure (a ROLLBACK), whose SQLSTATE the caller must still be able to read.
// Waits at most five seconds. Returns whether every result was a success. Never throws.
auto exec_quietly(connection& conn, const char* sql) noexcept -> bool;

// Ends the transaction open on @p conn, if any, with ROLLBACK, leaving last_error() alone. Tries
// twice: a cancel request sent just before (copy_out::abandon) can still reach the server late and
// cancel the first attempt. Returns whether the connection is idle outside any transaction.
// Never throws.
auto rollback_quietly(connection& conn) noexcept -> bool;

}  // namespace detail

}  // namespace replicant::pq

// The bodies that start, read, abandon and finish a copy: in every unit header-only, in the one
// unit that includes <replicant/src.hpp> with REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/pq/impl/copy.hpp>
#endif

#endif  // REPLICANT_PQ_COPY_HPP
