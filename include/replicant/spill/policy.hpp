// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SPILL_POLICY_HPP
#define REPLICANT_SPILL_POLICY_HPP

/// @file
/// The spill policy of the replication pipeline: what `pipeline<..., SpillPolicy, ...>` needs of its
/// `SpillPolicy`. A transaction is delivered only once it has committed, so until then each of its
/// changes has to be held somewhere. Within the resident budget (`max_inflight_bytes`) that is
/// memory; past it, the policy decides: nowhere (the pipeline halts), or a @ref replicant::spill_part
/// "spill_part" of the policy's making, from which the changes are read back at delivery.
///
/// The concept `replicant::spill_policy` is a conjunction of one atomic concept per member, and
/// `detail::check_spill_policy<P>()` is the pipeline's checklist: one `static_assert` per member.
/// docs/spill.md is the requirements page.

#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/spill_part.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>

namespace replicant {

/**
 * What a spill policy is told about the session it serves.
 *
 * The views are valid during the call they are given to, and for the whole session (the
 * pipeline's options outlive it); a policy that keeps them longer copies them.
 */
struct spill_context {
  /// The replication slot: a name for a policy's files, or a key for a sweep of this slot's
  /// leftovers. Validated before anything connects: `[a-z0-9_]{1,63}`, safe in a file name.
  std::string_view slot{};
  /// The resident budget, `pipeline_options::max_inflight_bytes`.
  std::size_t budget = 0;
};

/**
 * When a policy spills, and how much it may hold.
 *
 * @par Example
 * @code
 * // What disk_spill chooses: spill past a quarter of the budget, hold at most 16 budgets.
 * replicant::spill_limits l{.threshold_bytes = ctx.budget / 4, .max_bytes = std::uint64_t{16} * ctx.budget};
 * @endcode
 */
struct spill_limits {
  /// While the transactions in progress hold more than this in memory, the largest of them moves
  /// the changes it holds to its part. Below the budget, or the budget halts first: a quarter
  /// leaves room for the frames received but not yet assembled.
  std::size_t threshold_bytes = 0;
  /// The most bytes all parts may hold together; past it the pipeline halts `spill_exhausted`.
  std::uint64_t max_bytes = 0;
};

namespace detail {

/// Atom: a spill policy is an object type the pipeline can keep its own copy of.
template <class P>
concept spill_policy_object = std::is_object_v<P> && std::move_constructible<P>;

/// Atom: `p.limits(ctx)` (a query, on a `const P`) returns `std::optional<spill_limits>`: when to
/// spill and how much, or `std::nullopt` for a policy that never spills.
template <class P>
concept has_spill_limits = requires(const P& p, const spill_context& ctx) {
  { p.limits(ctx) } -> std::same_as<std::optional<spill_limits>>;
};

/// Atom: `p.prepare(ctx)` returns `result<void>`: made ready at the start of every session.
template <class P>
concept has_spill_prepare = requires(P& p, const spill_context& ctx) {
  { p.prepare(ctx) } -> std::same_as<result<void>>;
};

/// Atom: `p.open(ctx)` returns `result<std::unique_ptr<spill_part>>`: a new, empty part for one
/// transaction.
template <class P>
concept has_spill_open = requires(P& p, const spill_context& ctx) {
  { p.open(ctx) } -> std::same_as<result<std::unique_ptr<spill_part>>>;
};

}  // namespace detail

/**
 * A type the replication pipeline can take as its `SpillPolicy`: where the changes of a
 * transaction that outgrows the resident budget go, and how they are read back.
 *
 * | Expression | Type | Semantics |
 * |---|---|---|
 * | `cp.limits(ctx)` | `std::optional<spill_limits>` | When to spill and how much may be spilled; `std::nullopt`: never spill (a transaction over the budget halts `transaction_too_large`). Called at the start of every session, after `prepare`. |
 * | `p.prepare(ctx)` | `result<void>` | Called at the start of every session, before anything spills: check the storage, sweep what a dead process of this slot left. An error halts `spill_io_failed`. |
 * | `p.open(ctx)` | `result<std::unique_ptr<spill_part>>` | A new, empty @ref replicant::spill_part "spill_part" for one transaction, called when it first spills. An error (or a null part) halts `spill_io_failed`. |
 *
 * where `p` is an lvalue of `P`, `cp` a `const P` and `ctx` a `const spill_context&`. `P` is an
 * object type the pipeline can move (it keeps its own copy, as a `[[no_unique_address]]` member);
 * `P{}` is what a pipeline constructor that is not given a policy uses.
 *
 * @par Laws
 * The policy does not change what the sink receives: a spilled transaction is delivered with the
 * same changes, in the same order, as one held in memory. A spill failure acknowledges nothing
 * past the transaction. Nothing a part holds outlives it.
 *
 * @par Models
 * @ref replicant::no_spill "no_spill" (spill/none.hpp), @ref replicant::disk_spill "disk_spill"
 * (spill/disk.hpp).
 *
 * @par Example
 * @code
 * static_assert(replicant::spill_policy<replicant::disk_spill>);
 * @endcode
 *
 * @tparam P the spill policy type.
 */
template <class P>
concept spill_policy = detail::spill_policy_object<P> && detail::has_spill_limits<P> && detail::has_spill_prepare<P> &&
                       detail::has_spill_open<P>;

namespace detail {

/**
 * The spill-policy checklist of the pipeline: one `static_assert` per member @ref spill_policy
 * requires, each naming it in a sentence, so that a policy that does not fit is reported member by
 * member rather than as one unsatisfied concept. The assertions together are @ref spill_policy,
 * atom by atom.
 *
 * @return true: a policy that does not fit does not compile, with one sentence per missing member
 * (returning whether it fits would add a second, bare failure of the caller's `static_assert`).
 */
template <class P>
constexpr auto check_spill_policy() -> bool {
  static_assert(spill_policy_object<P>,
                "replicant: SpillPolicy must be a move-constructible object type (the pipeline keeps its own copy)");
  static_assert(has_spill_limits<P>,
                "replicant: SpillPolicy must provide `std::optional<spill_limits> limits(const spill_context&) "
                "const` (when to spill and how much, or std::nullopt to never spill)");
  static_assert(has_spill_prepare<P>,
                "replicant: SpillPolicy must provide `result<void> prepare(const spill_context&)` (called at the "
                "start of every session, before anything spills)");
  static_assert(has_spill_open<P>,
                "replicant: SpillPolicy must provide `result<std::unique_ptr<spill_part>> open(const "
                "spill_context&)` (a new part for each transaction that spills)");
  return true;
}

}  // namespace detail

}  // namespace replicant

#endif  // REPLICANT_SPILL_POLICY_HPP
