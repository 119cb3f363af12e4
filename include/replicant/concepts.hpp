// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CONCEPTS_HPP
#define REPLICANT_CONCEPTS_HPP

/// @file
/// The policy concepts. For now only a **provisional** `replicant::sink`: the replication-pipeline
/// work will refine it per checkpoint policy (`checkpointing_sink`, batch and snapshot callbacks).
/// The shape is final, though: each public concept is a conjunction of atomic concepts, one per
/// member, so that the compiler names the exact missing expression, and each has a checklist
/// (`detail::check_sink`) with one readable `static_assert` per member.

#include <replicant/lsn.hpp>
#include <replicant/result.hpp>
#include <replicant/sink.hpp>
#include <replicant/transaction_fwd.hpp>

#include <concepts>
#include <type_traits>
#include <optional>

namespace replicant {

struct schema_change;
struct logical_message;

namespace detail {

/// Atom: `s.checkpoint()` returns `result<std::optional<lsn>>` — the last commit LSN the sink
/// durably persisted, or none for a sink that has persisted nothing yet.
template <class S>
concept has_checkpoint = requires(S& s) {
  { s.checkpoint() } -> std::same_as<result<std::optional<lsn>>>;
};

/// Atom: `s.handle_transaction(txn)` returns `result<lsn>` — the commit LSN it durably persisted.
template <class S>
concept has_handle_transaction = requires(S& s, const transaction& txn) {
  { s.handle_transaction(txn) } -> std::same_as<result<lsn>>;
};

/// Atom (optional hook): `s.handle_session_identity(identity, context)` returns `result<void>`;
/// an error vetoes the connection (halt `session_identity_rejected`).
template <class S>
concept has_handle_session_identity = requires(S& s, const session_identity& id, const session_context& ctx) {
  { s.handle_session_identity(id, ctx) } -> std::same_as<result<void>>;
};

/// Atom (optional hook): `s.handle_slot_origin(origin, context)` returns `result<void>`; an error
/// vetoes the start position (halt `slot_origin_rejected`).
template <class S>
concept has_handle_slot_origin = requires(S& s, lsn origin, const slot_origin_context& ctx) {
  { s.handle_slot_origin(origin, ctx) } -> std::same_as<result<void>>;
};

/// Atom (optional hook): `s.handle_schema_change(change)` returns `result<void>`; success accepts a
/// destructive schema change, an error halts (`schema_change_rejected`).
template <class S>
concept has_handle_schema_change = requires(S& s, const schema_change& change) {
  { s.handle_schema_change(change) } -> std::same_as<result<void>>;
};

/// Atom (needed with the `messages` option): `s.handle_message(message, context)` returns
/// `result<void>`, for non-transactional logical messages.
template <class S>
concept has_handle_message = requires(S& s, const logical_message& m, const message_context& ctx) {
  { s.handle_message(m, ctx) } -> std::same_as<result<void>>;
};

// A member of that name exists, whatever its signature: tells "absent" from "misdeclared".
template <class S>
concept names_handle_session_identity = requires { &S::handle_session_identity; };
template <class S>
concept names_handle_slot_origin = requires { &S::handle_slot_origin; };
template <class S>
concept names_handle_schema_change = requires { &S::handle_schema_change; };
template <class S>
concept names_handle_message = requires { &S::handle_message; };

// The sink's declared kind; state_mirror when it declares none.
template <class S>
constexpr auto kind_of() noexcept -> sink_kind {
  if constexpr (requires { S::kind; }) {
    static_assert(std::same_as<std::remove_cvref_t<decltype(S::kind)>, sink_kind>,
                  "replicant: Sink::kind must be declared `static constexpr replicant::sink_kind kind = ...;`");
    return S::kind;
  } else {
    return sink_kind::state_mirror;
  }
}

}  // namespace detail

/**
 * A type the replication pipeline can deliver committed transactions to .
 *
 * | Expression | Type | Semantics |
 * |---|---|---|
 * | `s.checkpoint()` | `result<std::optional<lsn>>` | The commit LSN of the last transaction the sink durably persisted, or `std::nullopt` if none. Called at every (re)connect; streaming resumes after it. |
 * | `s.handle_transaction(txn)` | `result<lsn>` | Persist `txn` durably, skipping it if `txn.commit_lsn <= checkpoint`, and return its commit LSN. An error or an exception halts the pipeline, and nothing from `txn` on is acknowledged. |
 *
 * where `s` is an lvalue of `S` and `txn` a `const transaction&`.
 *
 * @par Laws
 * The checkpoint never moves backwards; an LSN is acknowledged to the server only after
 * `handle_transaction` returned it.
 *
 * @par Exemplar
 * @code
 * struct my_sink {
 *   auto checkpoint() -> replicant::result<std::optional<replicant::lsn>>;
 *   auto handle_transaction(const replicant::transaction& txn) -> replicant::result<replicant::lsn>;
 * };
 * static_assert(replicant::sink<my_sink>);
 * @endcode
 *
 * @tparam S the user's sink type.
 */
template <class S>
concept sink = detail::has_checkpoint<S> && detail::has_handle_transaction<S>;

namespace detail {

/**
 * The sink checklist: one `static_assert` per member @ref replicant::sink requires, each naming the
 * missing member, its signature and its purpose. The replication pipeline uses it as
 * `static_assert(detail::check_sink<Sink>())` so that a sink that does not fit is reported member by
 * member, rather than as one unsatisfied concept.
 *
 * @return `sink<S>`.
 */
template <class S>
constexpr auto check_sink() -> bool {
  static_assert(has_checkpoint<S>,
                "replicant: Sink must provide `result<std::optional<lsn>> checkpoint()` (returns the commit LSN "
                "it last persisted durably, or std::nullopt; called on every connect to resume after it)");
  static_assert(has_handle_transaction<S>,
                "replicant: Sink must provide `result<lsn> handle_transaction(const transaction&)` (called once "
                "per committed transaction)");
  static_assert(!names_handle_session_identity<S> || has_handle_session_identity<S>,
                "replicant: Sink::handle_session_identity must be `result<void> handle_session_identity(const "
                "session_identity&, const session_context&)`");
  static_assert(!names_handle_slot_origin<S> || has_handle_slot_origin<S>,
                "replicant: Sink::handle_slot_origin must be `result<void> handle_slot_origin(lsn, const "
                "slot_origin_context&)`");
  static_assert(!names_handle_schema_change<S> || has_handle_schema_change<S>,
                "replicant: Sink::handle_schema_change must be `result<void> handle_schema_change(const "
                "schema_change&)`");
  static_assert(!names_handle_message<S> || has_handle_message<S>,
                "replicant: Sink::handle_message must be `result<void> handle_message(const logical_message&, const "
                "message_context&)`");
  static_cast<void>(kind_of<S>());
  return sink<S>;
}

}  // namespace detail

}  // namespace replicant

#endif  // REPLICANT_CONCEPTS_HPP
