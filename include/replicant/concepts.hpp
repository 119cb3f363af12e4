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
#include <replicant/transaction_fwd.hpp>

#include <concepts>
#include <optional>

namespace replicant {

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

}  // namespace detail

/**
 * A type the replication pipeline can deliver committed transactions to (provisional).
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
  return sink<S>;
}

}  // namespace detail

}  // namespace replicant

#endif  // REPLICANT_CONCEPTS_HPP
