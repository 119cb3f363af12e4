// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_TAIL_SETUP_HPP
#define REPLICANT_EXAMPLES_TAIL_SETUP_HPP

/// @file
/// replicant-tail's connect chain, one small step per function: connect, check the server, check
/// the publications, find or create the slot (with the go-forward guard), and build the
/// START_REPLICATION command. Every failure is value-free: names reach the server only quoted,
/// and never an error message.

#include "failure.hpp"
#include "options.hpp"

#include <replicant/decoder/pgoutput.hpp>
#include <replicant/error.hpp>
#include <replicant/halt.hpp>
#include <replicant/identifier.hpp>
#include <replicant/lsn.hpp>
#include <replicant/pq/connection.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace replicant::examples::tail {

/// The oldest server replicant-tail supports (the `SNAPSHOT 'nothing'` option syntax of
/// CREATE_REPLICATION_SLOT and pgoutput protocol 3 arrived in PostgreSQL 15).
inline constexpr int min_server_version = 150000;

/// What the slot step found out.
struct slot_state {
  /// True when this run created the slot.
  bool created = false;
  /// Where the slot stands: its consistent point when created, its `confirmed_flush_lsn` otherwise
  /// (may be unknown for a slot that never confirmed anything).
  std::optional<lsn> position{};
};

namespace detail {

// A failure caused by the server refusing a command: keeps the SQLSTATE, never the message.
[[nodiscard]] inline auto server_failure(std::string_view step, std::error_code code, const pq::connection& conn,
                                         std::string_view hint = {}) -> failure {
  return failure{.step = step, .code = code, .hint = hint, .sqlstate = conn.last_error().sqlstate};
}

[[nodiscard]] inline auto refusal(std::string_view step, halt_reason reason, std::string_view hint) -> failure {
  return failure{.step = step, .code = make_error_code(reason), .hint = hint};
}

// Advice for the SQLSTATEs START_REPLICATION commonly fails with (PROTOCOL.md sections 1.8, 2.1).
[[nodiscard]] constexpr auto start_hint(std::string_view sqlstate) noexcept -> std::string_view {
  if (sqlstate == "55006") return "the slot is in use by another consumer";
  if (sqlstate == "55000") return "the slot cannot be used; it may have been invalidated";
  if (sqlstate == "0A000") return "the server refused an option; try a lower --proto-version";
  if (sqlstate == "42704") return "the slot or a publication does not exist";
  if (sqlstate == "42501") return "the role needs the REPLICATION attribute";
  return {};
}

// The boolean text of a query result ("t"/"f").
[[nodiscard]] inline auto is_true(const pq::query_result& r, int row, int column) -> bool {
  return !r.is_null(row, column) && r.get(row, column) == "t";
}

}  // namespace detail

/**
 * Opens the replication connection (`replication=database`) described by `--dsn`.
 * @param cancel_fd a descriptor that aborts the attempt when readable (the stop signal).
 * @return the connection, or a failure: `errc::cancelled` (stop requested),
 * `errc::connection_failed`, `errc::invalid_options` (unparseable connection string).
 */
[[nodiscard]] inline auto open_connection(const options& o, int cancel_fd) -> outcome<pq::connection> {
  auto c = pq::connection::open(o.dsn, pq::session_kind::replication, {.cancel_fd = cancel_fd});
  if (!c) {
    return failure{.step = "connecting",
                   .code = c.error(),
                   .hint = c.error() == errc::invalid_options
                               ? "--dsn is not a valid connection string"
                               : "check --dsn (or the PG* variables), that the server runs, and that the role may "
                                 "connect for replication"};
  }
  return std::move(*c);
}

/**
 * Checks the server version and chooses the pgoutput protocol: `--proto-version`, or the highest
 * the server has (3 on PostgreSQL 15, 4 on 16 and later).
 * @return the protocol version, or `errc::unsupported_server` (server older than 15, or a version
 * above what it supports).
 */
[[nodiscard]] inline auto choose_protocol(const pq::connection& conn, const options& o) -> outcome<std::uint32_t> {
  const int version = conn.server_version();
  if (version < min_server_version) {
    return failure{.step = "checking the server",
                   .code = make_error_code(errc::unsupported_server),
                   .hint = "replicant-tail needs PostgreSQL 15 or later"};
  }
  const std::uint32_t highest = version >= 160000 ? pgoutput_protocol::max_version : 3U;
  if (o.proto_version && *o.proto_version > highest) {
    return failure{.step = "checking --proto-version",
                   .code = make_error_code(errc::unsupported_server),
                   .hint = "the server's pgoutput knows protocols up to 3 (PostgreSQL 15) or 4 (16 and later)"};
  }
  return o.proto_version.value_or(highest);
}

/**
 * Checks that every publication exists, so a typo stops the start instead of surfacing as an error
 * at the first change (PostgreSQL 17 and older) or as silently missing tables (18).
 * @return nothing, or halt `publication_missing`, or a server failure.
 */
[[nodiscard]] inline auto check_publications(pq::connection& conn, const options& o) -> outcome<void> {
  std::string list;
  for (const auto& name : o.publications) {
    auto quoted = quote_literal(name);
    if (!quoted) return failure{.step = "checking the publications", .code = quoted.error()};
    if (!list.empty()) list += ',';
    list += *quoted;
  }
  auto r = conn.exec("SELECT count(*) FROM pg_catalog.pg_publication WHERE pubname IN (" + list + ")");
  if (!r) return detail::server_failure("checking the publications", r.error(), conn);
  if (r->get(0, 0) != std::to_string(o.publications.size())) {
    return detail::refusal("checking the publications", halt_reason::publication_missing,
                           "create the publication, or correct --publication");
  }
  return {};
}

namespace detail {

// The slot's row in pg_replication_slots: type, plugin, database, invalidation, position. The
// invalidation columns differ by version (PROTOCOL.md section 5.2).
[[nodiscard]] inline auto slot_query(const std::string& quoted_name, int server_version) -> std::string {
  std::string invalidated = "coalesce(wal_status = 'lost', false)";
  if (server_version >= 160000) invalidated += " OR coalesce(conflicting, false)";
  if (server_version >= 170000) invalidated += " OR invalidation_reason IS NOT NULL";
  return "SELECT slot_type, plugin = 'pgoutput', database = current_database(), " + invalidated +
         ", confirmed_flush_lsn FROM pg_catalog.pg_replication_slots WHERE slot_name = " + quoted_name;
}

// Creates the slot: persistent, pgoutput, and no snapshot (the stream starts now; nothing is copied).
[[nodiscard]] inline auto create_slot(pq::connection& conn, const options& o) -> outcome<slot_state> {
  auto name = quote_identifier(o.slot);
  if (!name) return failure{.step = "creating the slot", .code = name.error()};
  auto r = conn.exec("CREATE_REPLICATION_SLOT " + *name + " LOGICAL pgoutput (SNAPSHOT 'nothing')");
  if (!r) {
    const auto hint = conn.last_error().sqlstate == "42710" ? "the slot was created meanwhile; run again"
                                                            : "check max_replication_slots and wal_level = logical";
    return server_failure("creating the slot", r.error(), conn, hint);
  }
  slot_state s{.created = true};
  if (auto at = parse_lsn(r->get(0, 1))) s.position = *at;
  return s;
}

}  // namespace detail

/**
 * Finds the slot, checks it is usable (logical, pgoutput, this database, not invalidated), or
 * creates it when it is absent and `--create-slot` is given.
 *
 * The start-mode guard: a new slot starts at the current end of WAL, so everything committed
 * before is never printed. That is only done with `--go-forward-only`, which says so; without it
 * the start is refused (halt `go_forward_required`), checkpoint file or not, because a checkpoint
 * from an earlier slot cannot be resumed on a new one.
 *
 * @return the slot's state, or a failure (refusals: `go_forward_required`, `config_invalid`;
 * halts: `slot_invalidated`; server failures with their SQLSTATE).
 */
[[nodiscard]] inline auto prepare_slot(pq::connection& conn, const options& o) -> outcome<slot_state> {
  constexpr std::string_view step = "checking the slot";
  auto literal = quote_literal(o.slot);
  if (!literal) return failure{.step = step, .code = literal.error()};
  auto r = conn.exec(detail::slot_query(*literal, conn.server_version()));
  if (!r) return detail::server_failure(step, r.error(), conn);

  if (r->rows() == 0) {
    if (!o.create_slot) {
      return detail::refusal(step, halt_reason::config_invalid,
                             "the slot does not exist: check --slot, or pass --create-slot --go-forward-only");
    }
    if (!o.go_forward_only) {
      return detail::refusal(step, halt_reason::go_forward_required,
                             "the slot is new, so streaming would start now and never show earlier changes: pass "
                             "--go-forward-only to accept that");
    }
    return detail::create_slot(conn, o);
  }
  if (r->get(0, 0) != "logical") {
    return detail::refusal(step, halt_reason::config_invalid, "the slot is a physical slot, not a logical one");
  }
  if (!detail::is_true(*r, 0, 1)) {
    return detail::refusal(step, halt_reason::config_invalid, "the slot uses another output plugin than pgoutput");
  }
  if (!detail::is_true(*r, 0, 2)) {
    return detail::refusal(step, halt_reason::config_invalid,
                           "the slot belongs to another database: name that database in --dsn");
  }
  if (detail::is_true(*r, 0, 3)) {
    return failure{.step = step, .code = make_error_code(halt_reason::slot_invalidated)};
  }
  slot_state s;
  if (auto at = parse_lsn(r->get(0, 4))) s.position = *at;
  return s;
}

/**
 * The START_REPLICATION command: from the slot's confirmed position (`0/0`), with the chosen
 * protocol, the publications and, with `--messages`, logical messages. Names are quoted, the
 * publication list as the string literal pgoutput splits (`'"a","b"'`).
 * @return the command, or a failure when a name cannot be quoted (never the case for names that
 * passed option validation).
 */
[[nodiscard]] inline auto start_command(const options& o, std::uint32_t proto) -> outcome<std::string> {
  constexpr std::string_view step = "building the start command";
  auto slot = quote_identifier(o.slot);
  if (!slot) return failure{.step = step, .code = slot.error()};
  std::string names;
  for (const auto& p : o.publications) {
    auto q = quote_identifier(p);
    if (!q) return failure{.step = step, .code = q.error()};
    if (!names.empty()) names += ',';
    names += *q;
  }
  auto names_literal = quote_literal(names);
  if (!names_literal) return failure{.step = step, .code = names_literal.error()};
  std::string cmd = "START_REPLICATION SLOT " + *slot + " LOGICAL 0/0 (proto_version '" + std::to_string(proto) +
                    "', publication_names " + *names_literal;
  if (o.messages) cmd += ", messages 'true'";
  cmd += ')';
  return cmd;
}

}  // namespace replicant::examples::tail

#endif  // REPLICANT_EXAMPLES_TAIL_SETUP_HPP
