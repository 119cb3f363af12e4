// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CORE_ERROR_HPP
#define REPLICANT_CORE_ERROR_HPP

/// @file
/// replicant's error codes (`replicant::errc`) and their `std::error_category`, named "replicant".
/// Every message is fixed text chosen here: no error ever carries a row value, a WAL byte or a
/// user-supplied identifier.

#include <replicant/core/detail/config.hpp>

#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace replicant {

/**
 * The things that can go wrong, one code per cause a caller can act on.
 *
 * Codes say *what kind* of failure happened; the pipeline's @ref replicant::halt says *why it stopped*
 * (slot invalidated, sink too slow, ...). A code's message is a constant string: the offending bytes
 * or identifier are never part of it.
 */
enum class errc {
  /// Malformed WAL, plugin output or value text (a truncated message, an unknown message type,
  /// malformed `numeric`, non-hex `bytea`, ...). Never ordinary data: check the upstream server.
  decode_failure = 1,
  /// A text that should have been an LSN (`"16/B374D848"`) is not one.
  invalid_lsn,
  /// An identifier (slot, publication, table, ...) is not of an allowed shape.
  invalid_identifier,
  /// The options are invalid or contradictory; nothing was started.
  invalid_options,
  /// The server could not be reached, or the connection was lost. Transient: retried with backoff.
  connection_failed,
  /// The server answered a command with an error (the SQLSTATE is kept, the message text is not).
  server_error,
  /// The server sent something the replication protocol does not allow at that point.
  protocol_violation,
  /// The server's version, configuration or output plugin lacks what the options ask for.
  unsupported_server,
  /// The sink returned an error or threw.
  sink_failed,
  /// The checkpoint store could not read or write the checkpoint.
  checkpoint_store_failed,
  /// A local file operation failed (checkpoint file, spill file).
  io_failed,
  /// The pipeline halted fail-closed or refused to start. This code says only *that* it stopped:
  /// *why* is the @ref replicant::halt it keeps (`pipeline::last_halt()`, or `replicant::error::details()`
  /// from the throwing `run()`), whose `reason` is a @ref replicant::halt_reason. A halt reason is
  /// deliberately not an error code, so it cannot be compared with one by mistake.
  halted,
  /// A row has no column of the name asked for (mapping a row onto a struct, or looking a value up).
  column_missing,
  /// A column's value does not fit the C++ type asked for (wrong type, NULL into a non-optional,
  /// out of range).
  type_mismatch,
  /// The column's value was not sent because it is TOASTed and unchanged: there is no value to read.
  column_unchanged,
  /// The operation stopped because `stop()` was called.
  cancelled,
  /// The checkpoint store holds something that is not a checkpoint it can use (a table of another
  /// shape, a file of another format or of another slot). Permanent: retrying cannot help.
  store_mismatch,
  /// The server refused the connection for a reason a retry cannot fix: the credentials, the role,
  /// the `pg_hba.conf` rules, a missing database, or TLS that the connection string requires and
  /// that could not be established. Permanent: the pipeline halts.
  connection_refused,
  /// A publication named in the options does not exist on the server (reading a snapshot of it).
  publication_missing,
  /// Spilling a transaction to disk would exceed the spill budget (`spill_limits::max_bytes`).
  spill_exhausted,
  /// The output plugin announced a protocol version the decoder does not speak.
  protocol_unsupported,
  /// A message that must carry an LSN (a Begin or a Commit) arrived without one, so it cannot be
  /// acknowledged exactly once.
  lsn_missing,
};

namespace detail {

class error_category final : public std::error_category {
 public:
  [[nodiscard]] auto name() const noexcept -> const char* override { return "replicant"; }

  [[nodiscard]] auto message(int code) const -> std::string override;
};

}  // namespace detail

/// The category of @ref replicant::errc; its `name()` is `"replicant"`. @par Thread safety Safe.
[[nodiscard]] REPLICANT_DECL auto error_category() noexcept -> const std::error_category&;

/// The enumerator's name, e.g. `"decode_failure"`: stable, for logs and telemetry. Never throws.
[[nodiscard]] constexpr auto to_string(errc e) noexcept -> std::string_view {
  switch (e) {
    case errc::decode_failure: return "decode_failure";
    case errc::invalid_lsn: return "invalid_lsn";
    case errc::invalid_identifier: return "invalid_identifier";
    case errc::invalid_options: return "invalid_options";
    case errc::connection_failed: return "connection_failed";
    case errc::server_error: return "server_error";
    case errc::protocol_violation: return "protocol_violation";
    case errc::unsupported_server: return "unsupported_server";
    case errc::sink_failed: return "sink_failed";
    case errc::checkpoint_store_failed: return "checkpoint_store_failed";
    case errc::io_failed: return "io_failed";
    case errc::halted: return "halted";
    case errc::column_missing: return "column_missing";
    case errc::type_mismatch: return "type_mismatch";
    case errc::column_unchanged: return "column_unchanged";
    case errc::cancelled: return "cancelled";
    case errc::store_mismatch: return "store_mismatch";
    case errc::connection_refused: return "connection_refused";
    case errc::publication_missing: return "publication_missing";
    case errc::spill_exhausted: return "spill_exhausted";
    case errc::protocol_unsupported: return "protocol_unsupported";
    case errc::lsn_missing: return "lsn_missing";
  }
  return "unknown";
}

/// Makes a `std::error_code` from an @ref replicant::errc (found by ADL, as `std::error_code` expects).
[[nodiscard]] inline auto make_error_code(errc e) noexcept -> std::error_code {
  return {static_cast<int>(e), error_category()};
}

/**
 * Whether retrying cannot help: true for everything but a lost connection and a stop request.
 *
 * The pipeline reconnects with backoff on a non-fatal code and halts on a fatal one. Codes of other
 * categories (system errors from the OS) are treated as fatal.
 */
[[nodiscard]] REPLICANT_DECL auto is_fatal(std::error_code ec) noexcept -> bool;

namespace detail {

// The error class telemetry may carry for a fault (a store's, a snapshot's, a heartbeat's): the
// replicant code itself, and codes of other categories (the OS's) as I/O.
inline auto error_class_of(std::error_code ec) noexcept -> errc {
  return ec.category() == replicant::error_category() ? static_cast<errc>(ec.value()) : errc::io_failed;
}

}  // namespace detail

/**
 * Whether @p s is a well-formed SQLSTATE: exactly five characters of `[0-9A-Z]`. A failure's
 * SQLSTATE is filled from the server's bytes: print it only when this holds. Never throws.
 */
[[nodiscard]] REPLICANT_DECL auto is_sqlstate(std::string_view s) noexcept -> bool;

}  // namespace replicant

template <>
struct std::is_error_code_enum<replicant::errc> : std::true_type {};

// The category's messages and the classifying functions: in every unit header-only, in the one
// unit that includes <replicant/src.hpp> with REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/core/impl/error.hpp>
#endif

#endif  // REPLICANT_CORE_ERROR_HPP
