// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PQ_CONNECTION_HPP
#define REPLICANT_PQ_CONNECTION_HPP

/// @file
/// replicant::pq::connection: an owning, non-blocking libpq connection whose failures are value-free.
/// With replication_stream.hpp, the only part of replicant that includes <libpq-fe.h>.

#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>

#include <libpq-fe.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace replicant::pq {

/// Which kind of backend a connection talks to.
enum class session_kind {
  /// An ordinary backend: SQL only.
  normal,
  /// A logical walsender (`replication=database`): replication commands and simple-protocol SQL.
  replication,
};

/**
 * The result of one command: a read-only table of text values.
 *
 * Values are returned as views into the result and live as long as it does. They are data from the
 * server and may be row values: callers must never put them into an error, a log line or telemetry.
 */
class query_result {
 public:
  /// Takes ownership of @p res (may be null for an empty result).
  explicit query_result(PGresult* res) noexcept : res_(res) {}

  /// Number of rows.
  [[nodiscard]] auto rows() const noexcept -> int { return res_ ? PQntuples(res_.get()) : 0; }
  /// Number of columns.
  [[nodiscard]] auto columns() const noexcept -> int { return res_ ? PQnfields(res_.get()) : 0; }
  /// Whether the value at (@p row, @p column) is SQL NULL. Out-of-range positions count as NULL.
  [[nodiscard]] auto is_null(int row, int column) const noexcept -> bool {
    return !in_range(row, column) || PQgetisnull(res_.get(), row, column) != 0;
  }
  /// The text of the value at (@p row, @p column); empty for NULL or an out-of-range position.
  [[nodiscard]] auto get(int row, int column) const noexcept -> std::string_view {
    if (!in_range(row, column)) return {};
    return {PQgetvalue(res_.get(), row, column), static_cast<std::size_t>(PQgetlength(res_.get(), row, column))};
  }
  /// The value at (@p row, @p column), or nothing when it is NULL.
  [[nodiscard]] auto get_optional(int row, int column) const noexcept -> std::optional<std::string_view> {
    if (is_null(row, column)) return std::nullopt;
    return get(row, column);
  }
  /// The type OID of @p column (0 when out of range).
  [[nodiscard]] auto column_type(int column) const noexcept -> std::uint32_t {
    return res_ && column >= 0 && column < columns() ? PQftype(res_.get(), column) : 0U;
  }
  /// The index of the column named @p name, or -1.
  [[nodiscard]] auto column_index(const char* name) const noexcept -> int {
    return res_ ? PQfnumber(res_.get(), name) : -1;
  }
  /// The underlying libpq result (still owned by this object).
  [[nodiscard]] auto native_handle() const noexcept -> PGresult* { return res_.get(); }

 private:
  struct deleter {
    void operator()(PGresult* r) const noexcept { PQclear(r); }
  };
  [[nodiscard]] auto in_range(int row, int column) const noexcept -> bool {
    return res_ && row >= 0 && row < rows() && column >= 0 && column < columns();
  }
  std::unique_ptr<PGresult, deleter> res_;
};

/**
 * What the server said when a command failed, reduced to what is safe to keep.
 *
 * Server error texts can quote row values (a unique violation prints the key, for instance), so only
 * the SQLSTATE is kept.
 */
struct server_error {
  /// The five-character SQLSTATE (e.g. `"55006"` object in use), or empty when the server sent none.
  std::string sqlstate;
};

/**
 * Why a connection was refused for good: faults that a retry cannot fix, as opposed to a server that
 * is down or a network that drops (which open() reports as `errc::connection_failed`).
 */
enum class refusal {
  /// Not refused (reachable and accepted, or a transient failure).
  none,
  /// The server refused the credentials (SQLSTATE 28P01), or asked for a password none was given for.
  authentication,
  /// The server refused the role: it does not exist, may not log in, or the authentication method
  /// (peer, ident, certificate) did not accept it (SQLSTATE 28000).
  role,
  /// A `pg_hba.conf` line rejects this host, user and database, or none matches (SQLSTATE 28000).
  host,
  /// The database does not exist (SQLSTATE 3D000).
  database,
  /// The connection string requires TLS (`sslmode` require, verify-ca or verify-full) and the
  /// server offers none.
  tls,
  /// The connection string requires TLS and the server's certificate did not verify: signed by no
  /// certificate authority of `sslrootcert` (or that file is missing), or, under verify-full, made
  /// out to another host name.
  tls_verification,
};

/// What open() learned of a refused connection: the refusal and the server's SQLSTATE, if it sent one.
struct connect_refusal {
  /// Why, or refusal::none.
  refusal why = refusal::none;
  /// The SQLSTATE the server sent (empty for a refusal decided by libpq, such as TLS).
  std::string sqlstate;
};

namespace detail {

// How far a failed attempt got with TLS, as libpq's connection state shows it (never its message,
// which a message locale translates).
enum class tls_reach {
  none,       // no TLS request was sent, or the attempt failed before its answer was awaited
  declined,   // the TLS request was sent, and the attempt failed before any handshake began
  handshake,  // a TLS handshake began
};

}  // namespace detail

/// Options that shape how a connection is opened. Everything has a sensible default.
struct connect_options {
  /// Give up connecting after this long (the connection string's own `connect_timeout` also applies).
  std::chrono::milliseconds timeout{std::chrono::seconds(30)};
  /// A file descriptor that, once readable, aborts the attempt with `errc::cancelled` (-1: none).
  int cancel_fd = -1;
  /// A file descriptor that, once readable, interrupts a command in progress with `errc::cancelled`
  /// (-1: none). Separate from `cancel_fd`, which only interrupts connecting: a caller that must
  /// finish its last command while stopping keeps this one unset.
  int command_cancel_fd = -1;
  /// Longest a command may take (sending it and receiving its results); past it exec() fails with
  /// `errc::connection_failed` and the connection should be dropped. A network that goes silent
  /// without closing the connection then costs this long, not forever.
  std::chrono::milliseconds command_timeout{std::chrono::seconds(60)};
};

/**
 * An owning connection to a PostgreSQL server.
 *
 * Opening pins the session settings that shape the text form of values, so that casting is the same
 * whatever the server's defaults: `client_encoding=UTF8`, `DateStyle=ISO`, `IntervalStyle=postgres`,
 * `TimeZone=UTC`, `extra_float_digits=3`, `bytea_output=hex`. Settings the caller's connection string
 * puts in `options` are kept, and ours are appended after them (the later setting wins).
 *
 * Commands use the simple query protocol (`PQexec` semantics), the only one a walsender accepts.
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe (one thread at a time).
 */
class connection {
 public:
  /// Opens a connection described by @p conninfo (a libpq keyword/value string or URI).
  /// @return the connection, or `errc::connection_refused` (a fault a retry cannot fix: credentials,
  ///         role, host rules, database, TLS the server lacks or a certificate that does not verify;
  ///         @p refused, when given, says which),
  ///         `errc::connection_failed` (unreachable, dropped, timed out), `errc::cancelled` (the
  ///         cancel descriptor fired) or `errc::invalid_options` (unparseable connection string).
  ///         The error never contains the connection string or the server's message.
  [[nodiscard]] static auto open(std::string_view conninfo, session_kind kind, const connect_options& options = {},
                                 connect_refusal* refused = nullptr) -> result<connection>;

  /// Runs @p sql (one or more statements; the last result is returned) and waits for it.
  /// @return the result, `errc::server_error` (see last_error()) or `errc::connection_failed`.
  [[nodiscard]] auto exec(const std::string& sql) -> result<query_result>;

  /// The server's version as an integer, e.g. 180004 (known without a round trip).
  [[nodiscard]] auto server_version() const noexcept -> int { return PQserverVersion(conn_.get()); }
  /// The process id of the server backend (or walsender) of this session. Never throws.
  [[nodiscard]] auto backend_pid() const noexcept -> int { return PQbackendPID(conn_.get()); }
  /// The socket, for poll().
  [[nodiscard]] auto socket() const noexcept -> int { return PQsocket(conn_.get()); }
  /// Whether the connection is still usable.
  [[nodiscard]] auto is_open() const noexcept -> bool { return conn_ && PQstatus(conn_.get()) == CONNECTION_OK; }
  /// What the server said when the last command failed.
  [[nodiscard]] auto last_error() const noexcept -> const server_error& { return last_error_; }
  /// The underlying libpq connection (still owned by this object).
  [[nodiscard]] auto native_handle() const noexcept -> PGconn* { return conn_.get(); }

  /// Records the SQLSTATE of @p res (if any) as the last error; used by the stream too.
  auto remember_error(const PGresult* res) -> void;

 private:
  struct deleter {
    void operator()(PGconn* c) const noexcept { PQfinish(c); }
  };
  explicit connection(PGconn* c) noexcept : conn_(c) {}

  // One attempt at what open() does, with the keywords and values it prepared (each list ends in
  // a null pointer); @p why says why it was refused, when it was.
  static auto attempt(const char* const* keys, const char* const* values, const connect_options& options,
                      connect_refusal& why) -> result<connection>;

  std::unique_ptr<PGconn, deleter> conn_;
  server_error last_error_;
  int cancel_fd_ = -1;  // from connect_options: interrupts a command in progress
  std::chrono::milliseconds command_timeout_{std::chrono::seconds(60)};
};

namespace detail {

// The session settings pinned on every connection (see the class comment of connection).
inline constexpr std::string_view pinned_options =
    "-c DateStyle=ISO -c IntervalStyle=postgres -c TimeZone=UTC -c extra_float_digits=3 -c bytea_output=hex";

// Waits until @p fd is ready for @p events, the cancel descriptor fires, or the deadline passes.
auto wait_for(int fd, short events, int cancel_fd, std::chrono::steady_clock::time_point deadline) -> result<void>;

// The SQLSTATE in a libpq error message written with PQERRORS_VERBOSE ("FATAL:  28P01:  ..."): the
// first five characters of [0-9A-Z] between ":  " and ":". Empty when there is none (an error of
// libpq's own). Only the code is taken: the rest of the text names users and databases.
auto sqlstate_in(std::string_view message) -> std::string;

// Whether an sslmode requires TLS.
inline auto requires_tls(std::string_view sslmode) noexcept -> bool {
  return sslmode == "require" || sslmode == "verify-ca" || sslmode == "verify-full";
}

// Classifies libpq's own TLS failures, for a connection string that requires TLS (the server has
// said nothing, so there is no SQLSTATE). A server without TLS answers the TLS request with 'N',
// and libpq gives up before any handshake begins: that is read from libpq's state (@p reach),
// not from its message, which a message locale translates. (A server that closes the
// connection at the request, dying or restarting, looks the same once; open() tells the two apart
// by trying again.) A handshake that began and failed is final when the message names a
// certificate: OpenSSL's "certificate verify failed" (no CA of sslrootcert signed it, or it
// expired), libpq's "server certificate for "..." does not match host name "..."" (verify-full)
// and "root certificate file "..." does not exist" (a client certificate the connection string
// names and libpq cannot load reads alike, and is as final). Anything else ("SSL SYSCALL error:
// EOF detected", "SSL error: unexpected eof while reading", "SSL connection has been closed
// unexpectedly") is a handshake the network or a restarting server cut short: transient, retried
// like any dropped connection.
auto classify_tls_failure(std::string_view message, tls_reach reach) noexcept -> refusal;

// Classifies a failed connection attempt: a refusal that a retry cannot fix, or none (transient).
// @p message is libpq's (verbose) error text, read here and dropped; @p needs_password is
// PQconnectionNeedsPassword; @p sslmode the effective sslmode; @p reach how far the attempt got
// with TLS. The server's own messages are not translated by libpq; "pg_hba.conf" (a file name)
// stays as it is in every translation.
auto classify_refusal(std::string_view message, bool needs_password, std::string_view sslmode,
                      tls_reach reach = tls_reach::none) -> connect_refusal;

// The effective value of @p keyword on @p conn (its connection string, the environment, or the
// default), or empty.
auto conninfo_value(PGconn* conn, std::string_view keyword) -> std::string;

}  // namespace detail

}  // namespace replicant::pq

// The bodies that connect, run commands and classify failures: in every unit header-only, in the
// one unit that includes <replicant/src.hpp> with REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/pq/impl/connection.hpp>
#endif

#endif  // REPLICANT_PQ_CONNECTION_HPP
