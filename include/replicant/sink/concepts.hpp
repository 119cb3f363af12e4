// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SINK_CONCEPTS_HPP
#define REPLICANT_SINK_CONCEPTS_HPP

/// @file
/// The sink concepts the library's checkpoint policies ask for: `replicant::sink` (sink-owned
/// checkpoint, one transaction at a time), `replicant::batch_sink` (sink-owned, atomic batches),
/// `replicant::lib_mode_sink` (library-owned checkpoint); `replicant::deferred_sink` (the sink
/// confirms later) is in checkpoint/deferred.hpp, with the type it confirms through. Each public concept is a
/// conjunction of atomic concepts, one per member, so that the compiler names the exact missing expression; each
/// policy's `check_sink<Sink>()` has one readable `static_assert` per member it requires. The whole combination is
/// checked by `replicant::sink_for` (sink_for.hpp).

#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/transaction_fwd.hpp>
#include <replicant/sink/vocabulary.hpp>

#include <concepts>
#include <optional>
#include <span>
#include <string>
#include <type_traits>

namespace replicant {

struct schema_change;
struct logical_message;
struct prepared_event;
class snapshot_batch;
struct snapshot_context;

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

/// Atom (library-owned checkpoint): `s.handle_transaction(txn)` returns `result<void>` — the
/// transaction is durably persisted; the library stores the checkpoint.
template <class S>
concept has_handle_transaction_void = requires(S& s, const transaction& txn) {
  { s.handle_transaction(txn) } -> std::same_as<result<void>>;
};

/// Atom: `s.handle_batch(txns)` returns `result<lsn>` — the highest commit LSN of the batch, persisted
/// atomically with all of its rows.
template <class S>
concept has_handle_batch = requires(S& s, std::span<const transaction> txns) {
  { s.handle_batch(txns) } -> std::same_as<result<lsn>>;
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

/// Atom (optional hook): `s.handle_schema_change(change, context)` returns `result<void>`; success
/// accepts a destructive schema change or a widening, an error halts (`schema_change_rejected`).
template <class S>
concept has_handle_schema_change_with_context =
    requires(S& s, const schema_change& change, const schema_change_context& ctx) {
      { s.handle_schema_change(change, ctx) } -> std::same_as<result<void>>;
    };

/// Atom: the hook's older, one-argument form `s.handle_schema_change(change)`, still called (without
/// the context) so that sinks written against it keep compiling and behaving.
template <class S>
concept has_handle_schema_change_without_context = requires(S& s, const schema_change& change) {
  { s.handle_schema_change(change) } -> std::same_as<result<void>>;
};

/// Atom (optional hook): `handle_schema_change` in either of its forms.
template <class S>
concept has_handle_schema_change =
    has_handle_schema_change_with_context<S> || has_handle_schema_change_without_context<S>;

// Calls the hook in whichever form the sink declares; the older form does without the context.
template <class S>
  requires has_handle_schema_change<S>
auto call_handle_schema_change(S& s, const schema_change& change, const schema_change_context& ctx) -> result<void> {
  if constexpr (has_handle_schema_change_with_context<S>) {
    return s.handle_schema_change(change, ctx);
  } else {
    static_cast<void>(ctx);
    return s.handle_schema_change(change);
  }
}

/// Atom (needed with the `messages` option): `s.handle_message(message, context)` returns
/// `result<void>`, for non-transactional logical messages.
template <class S>
concept has_handle_message = requires(S& s, const logical_message& m, const message_context& ctx) {
  { s.handle_message(m, ctx) } -> std::same_as<result<void>>;
};

/// Atom (optional hook, with `two_phase`): `s.handle_prepare(event)` returns `result<void>`; it sees
/// each PREPARE (the transaction itself is delivered at COMMIT PREPARED). An error halts.
template <class S>
concept has_handle_prepare = requires(S& s, const prepared_event& e) {
  { s.handle_prepare(e) } -> std::same_as<result<void>>;
};

/// Atom (needed with the `snapshot` start mode): `s.handle_snapshot(batch, context)` returns
/// `result<void>`: stores a batch of existing rows (upsert by key; the first batch of a table may
/// start by clearing it).
template <class S>
concept has_handle_snapshot = requires(S& s, const snapshot_batch& b, const snapshot_context& ctx) {
  { s.handle_snapshot(b, ctx) } -> std::same_as<result<void>>;
};

/// Atom (needed with the `snapshot` start mode): `s.handle_snapshot_complete(at)` returns
/// `result<void>`: every batch is stored; a sink that owns its checkpoint stores `at` as it.
template <class S>
concept has_handle_snapshot_complete = requires(S& s, lsn at) {
  { s.handle_snapshot_complete(at) } -> std::same_as<result<void>>;
};

/// Atom (needed with the `incremental` snapshot mode under a sink-owned checkpoint):
/// `s.snapshot_progress()` returns `result<std::optional<std::string>>`: the progress token it
/// stored atomically with the last chunk it applied (`snapshot_context::progress`), or none when
/// it has stored none.
template <class S>
concept has_snapshot_progress = requires(S& s) {
  { s.snapshot_progress() } -> std::same_as<result<std::optional<std::string>>>;
};

// Callable as the pipeline calls it, whatever it returns: tells "misdeclared" (the parameters do
// not fit) from "the wrong return type".
template <class S>
concept calls_checkpoint = requires(S& s) { s.checkpoint(); };
template <class S>
concept calls_handle_transaction = requires(S& s, const transaction& txn) { s.handle_transaction(txn); };
template <class S>
concept calls_handle_batch = requires(S& s, std::span<const transaction> txns) { s.handle_batch(txns); };
template <class S>
concept calls_handle_session_identity =
    requires(S& s, const session_identity& id, const session_context& ctx) { s.handle_session_identity(id, ctx); };
template <class S>
concept calls_handle_slot_origin =
    requires(S& s, lsn origin, const slot_origin_context& ctx) { s.handle_slot_origin(origin, ctx); };
template <class S>
concept calls_handle_schema_change = requires(S& s, const schema_change& change, const schema_change_context& ctx) {
  s.handle_schema_change(change, ctx);
} || requires(S& s, const schema_change& change) { s.handle_schema_change(change); };
template <class S>
concept calls_handle_message =
    requires(S& s, const logical_message& m, const message_context& ctx) { s.handle_message(m, ctx); };
template <class S>
concept calls_handle_prepare = requires(S& s, const prepared_event& e) { s.handle_prepare(e); };
template <class S>
concept calls_handle_snapshot =
    requires(S& s, const snapshot_batch& b, const snapshot_context& ctx) { s.handle_snapshot(b, ctx); };
template <class S>
concept calls_handle_snapshot_complete = requires(S& s, lsn at) { s.handle_snapshot_complete(at); };
template <class S>
concept calls_snapshot_progress = requires(S& s) { s.snapshot_progress(); };

// A member of that name exists, whatever its signature: tells "absent" from "misdeclared". Taking
// its address finds a single member; an overloaded or templated one is found by the call.
template <class S>
concept names_checkpoint = requires { &S::checkpoint; } || calls_checkpoint<S>;
template <class S>
concept names_handle_transaction = requires { &S::handle_transaction; } || calls_handle_transaction<S>;
template <class S>
concept names_handle_batch = requires { &S::handle_batch; } || calls_handle_batch<S>;
template <class S>
concept names_handle_session_identity = requires { &S::handle_session_identity; } || calls_handle_session_identity<S>;
template <class S>
concept names_handle_slot_origin = requires { &S::handle_slot_origin; } || calls_handle_slot_origin<S>;
template <class S>
concept names_handle_schema_change = requires { &S::handle_schema_change; } || calls_handle_schema_change<S>;
template <class S>
concept names_handle_message = requires { &S::handle_message; } || calls_handle_message<S>;
template <class S>
concept names_handle_prepare = requires { &S::handle_prepare; } || calls_handle_prepare<S>;
template <class S>
concept names_handle_snapshot = requires { &S::handle_snapshot; } || calls_handle_snapshot<S>;
template <class S>
concept names_handle_snapshot_complete =
    requires { &S::handle_snapshot_complete; } || calls_handle_snapshot_complete<S>;
template <class S>
concept names_snapshot_progress = requires { &S::snapshot_progress; } || calls_snapshot_progress<S>;

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

// Whether the sink lists its optional hooks (`static constexpr hook hooks = ...;`).
template <class S>
concept lists_hooks = requires { S::hooks; };

// No list, or a list of type `hook`.
template <class S>
concept hooks_well_typed = !lists_hooks<S> || std::same_as<std::remove_cvref_t<decltype(S::hooks)>, hook>;

// A hook is listed exactly when a member of its name exists (always true for a sink that lists none).
// (A list of another type is reported once, by hooks_well_typed, not again here.)
template <class S, hook H, bool Named>
concept listed_as_named = !lists_hooks<S> || !hooks_well_typed<S> || (contains(S::hooks, H) == Named);

}  // namespace detail

/**
 * Opt-in: specialize as `true` for a sink meant for the `incremental` snapshot mode, so that a
 * missing member is a compile error with a message (from the pipeline's sink checklist), rather
 * than the start-time rejection `snapshot_unsupported` the pipeline gives a sink that cannot take
 * the mode.
 *
 * With it, the checklist requires `handle_snapshot`, and `snapshot_progress()` under a sink-owned
 * checkpoint, or a @ref replicant::progress_store "progress_store" under a library-owned one.
 *
 * @par Example
 * @code
 * template <> inline constexpr bool replicant::enable_incremental_snapshot<my_sink> = true;
 * @endcode
 */
template <class S>
inline constexpr bool enable_incremental_snapshot = false;

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
 * Nothing the pipeline hands a sink throws at it. In particular, iterating the changes of a
 * transaction spilled to disk never throws when its part cannot be read back: the iteration ends
 * early and `txn.read_error()` says why. The sink checks it before persisting what it read and
 * returns it; the pipeline halts `spill_io_failed` whatever the sink returns, acknowledging nothing
 * from `txn` on (docs/ranges.md). The same holds for every checkpoint policy's sink members.
 *
 * @par Laws
 * The checkpoint never moves backwards; an LSN is acknowledged to the server only after
 * `handle_transaction` returned it, and never for a transaction whose changes could not be read
 * back whole.
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

/**
 * A type the pipeline can deliver batches of committed transactions to, under
 * @ref replicant::sink_owned_batches "sink_owned_batches".
 *
 * | Expression | Type | Semantics |
 * |---|---|---|
 * | `s.checkpoint()` | `result<std::optional<lsn>>` | As for @ref replicant::sink. |
 * | `s.handle_batch(txns)` | `result<lsn>` | In one atomic unit, persist every transaction of `txns` (ascending `commit_lsn`) whose `commit_lsn` is above the checkpoint, and the highest commit LSN as the new checkpoint; return that LSN. An error or an exception halts, and nothing of the batch is acknowledged. |
 *
 * where `s` is an lvalue of `S` and `txns` a `std::span<const transaction>` (valid during the call).
 *
 * @par Exemplar
 * @code
 * struct my_batch_sink {
 *   auto checkpoint() -> replicant::result<std::optional<replicant::lsn>>;
 *   auto handle_batch(std::span<const replicant::transaction> txns) -> replicant::result<replicant::lsn>;
 * };
 * static_assert(replicant::batch_sink<my_batch_sink>);
 * @endcode
 */
template <class S>
concept batch_sink = detail::has_checkpoint<S> && detail::has_handle_batch<S>;

/**
 * A type the pipeline can deliver committed transactions to when the library owns the checkpoint
 * (@ref replicant::lib_owned_checkpoint "lib_owned_checkpoint").
 *
 * | Expression | Type | Semantics |
 * |---|---|---|
 * | `s.handle_transaction(txn)` | `result<void>` or `result<lsn>` (the commit LSN) | Persist `txn` durably. The library writes the checkpoint after it returns. An error or an exception halts; nothing from `txn` on is acknowledged. |
 *
 * and no `checkpoint()` member: the store's checkpoint is the only one, so a sink that declares its
 * own is rejected rather than silently ignored.
 *
 * @par Exemplar
 * @code
 * struct my_file_sink {
 *   auto handle_transaction(const replicant::transaction& txn) -> replicant::result<void>;
 * };
 * static_assert(replicant::lib_mode_sink<my_file_sink>);
 * @endcode
 */
template <class S>
concept lib_mode_sink =
    (detail::has_handle_transaction<S> || detail::has_handle_transaction_void<S>) && !detail::names_checkpoint<S>;

namespace detail {

// The optional hooks: absent, or declared exactly as the pipeline calls them. A hook of that name
// is either not callable as the pipeline calls it (the "must be" sentence) or returns the wrong
// type (the "wrong return type" sentence): never both, so each hook is reported once.
// Returns true: what does not fit does not compile.
template <class S>
constexpr auto check_hooks() -> bool {
  static_assert(!names_handle_session_identity<S> || calls_handle_session_identity<S>,
                "replicant: Sink::handle_session_identity must be `result<void> handle_session_identity(const "
                "session_identity&, const session_context&)`");
  static_assert(!calls_handle_session_identity<S> || has_handle_session_identity<S>,
                "replicant: Sink::handle_session_identity has the wrong return type: it must return `result<void>` "
                "(an error vetoes the connection)");
  static_assert(!names_handle_slot_origin<S> || calls_handle_slot_origin<S>,
                "replicant: Sink::handle_slot_origin must be `result<void> handle_slot_origin(lsn, const "
                "slot_origin_context&)`");
  static_assert(!calls_handle_slot_origin<S> || has_handle_slot_origin<S>,
                "replicant: Sink::handle_slot_origin has the wrong return type: it must return `result<void>` (an "
                "error vetoes the start position)");
  static_assert(!names_handle_schema_change<S> || calls_handle_schema_change<S>,
                "replicant: Sink::handle_schema_change must be `result<void> handle_schema_change(const "
                "schema_change&, const schema_change_context&)` (or the older `result<void> "
                "handle_schema_change(const schema_change&)`)");
  static_assert(!calls_handle_schema_change<S> || has_handle_schema_change<S>,
                "replicant: Sink::handle_schema_change has the wrong return type: it must return `result<void>` "
                "(success accepts the change, an error halts)");
  static_assert(!names_handle_message<S> || calls_handle_message<S>,
                "replicant: Sink::handle_message must be `result<void> handle_message(const logical_message&, const "
                "message_context&)`");
  static_assert(!calls_handle_message<S> || has_handle_message<S>,
                "replicant: Sink::handle_message has the wrong return type: it must return `result<void>` (an error "
                "halts)");
  static_assert(!names_handle_prepare<S> || calls_handle_prepare<S>,
                "replicant: Sink::handle_prepare must be `result<void> handle_prepare(const prepared_event&)`");
  static_assert(!calls_handle_prepare<S> || has_handle_prepare<S>,
                "replicant: Sink::handle_prepare has the wrong return type: it must return `result<void>` (an error "
                "halts)");
  static_assert(!names_handle_snapshot<S> || calls_handle_snapshot<S>,
                "replicant: Sink::handle_snapshot must be `result<void> handle_snapshot(const snapshot_batch&, const "
                "snapshot_context&)`");
  static_assert(!calls_handle_snapshot<S> || has_handle_snapshot<S>,
                "replicant: Sink::handle_snapshot has the wrong return type: it must return `result<void>` (an error "
                "halts the snapshot)");
  static_assert(!names_handle_snapshot_complete<S> || calls_handle_snapshot_complete<S>,
                "replicant: Sink::handle_snapshot_complete must be `result<void> handle_snapshot_complete(lsn)`");
  static_assert(!calls_handle_snapshot_complete<S> || has_handle_snapshot_complete<S>,
                "replicant: Sink::handle_snapshot_complete has the wrong return type: it must return `result<void>` "
                "(an error halts the snapshot)");
  static_assert(!names_snapshot_progress<S> || calls_snapshot_progress<S>,
                "replicant: Sink::snapshot_progress must be `result<std::optional<std::string>> snapshot_progress()`");
  static_assert(!calls_snapshot_progress<S> || has_snapshot_progress<S>,
                "replicant: Sink::snapshot_progress has the wrong return type: it must return "
                "`result<std::optional<std::string>>` (the progress token it stored, or none)");
  static_assert(hooks_well_typed<S>,
                "replicant: Sink::hooks must be declared `static constexpr replicant::hook hooks = ...;`");
  static_assert(listed_as_named<S, hook::session_identity, names_handle_session_identity<S>>,
                "replicant: Sink::hooks and the sink's members disagree on handle_session_identity: list "
                "hook::session_identity exactly when the sink has a member of that name (misspelled?)");
  static_assert(listed_as_named<S, hook::slot_origin, names_handle_slot_origin<S>>,
                "replicant: Sink::hooks and the sink's members disagree on handle_slot_origin: list "
                "hook::slot_origin exactly when the sink has a member of that name (misspelled?)");
  static_assert(listed_as_named<S, hook::schema_change, names_handle_schema_change<S>>,
                "replicant: Sink::hooks and the sink's members disagree on handle_schema_change: list "
                "hook::schema_change exactly when the sink has a member of that name (misspelled?)");
  static_assert(listed_as_named<S, hook::message, names_handle_message<S>>,
                "replicant: Sink::hooks and the sink's members disagree on handle_message: list hook::message "
                "exactly when the sink has a member of that name (misspelled?)");
  static_assert(listed_as_named<S, hook::prepare, names_handle_prepare<S>>,
                "replicant: Sink::hooks and the sink's members disagree on handle_prepare: list hook::prepare "
                "exactly when the sink has a member of that name (misspelled?)");
  static_assert(listed_as_named<S, hook::snapshot, names_handle_snapshot<S>>,
                "replicant: Sink::hooks and the sink's members disagree on handle_snapshot: list hook::snapshot "
                "exactly when the sink has a member of that name (misspelled?)");
  static_assert(listed_as_named<S, hook::snapshot_complete, names_handle_snapshot_complete<S>>,
                "replicant: Sink::hooks and the sink's members disagree on handle_snapshot_complete: list "
                "hook::snapshot_complete exactly when the sink has a member of that name (misspelled?)");
  static_assert(listed_as_named<S, hook::snapshot_progress, names_snapshot_progress<S>>,
                "replicant: Sink::hooks and the sink's members disagree on snapshot_progress: list "
                "hook::snapshot_progress exactly when the sink has a member of that name (misspelled?)");
  static_cast<void>(kind_of<S>());
  return true;
}

// Sink::checkpoint() as every policy that reads the sink's checkpoint calls it, once the sink has a
// member of that name (the policy's own sentence says that it needs one).
template <class S>
constexpr auto check_checkpoint_declared() -> bool {
  static_assert(!names_checkpoint<S> || calls_checkpoint<S>,
                "replicant: Sink::checkpoint must be `result<std::optional<lsn>> checkpoint()` (it takes no "
                "arguments)");
  static_assert(!calls_checkpoint<S> || has_checkpoint<S>,
                "replicant: Sink::checkpoint has the wrong return type: it must return `result<std::optional<lsn>>` "
                "(the commit LSN it last persisted durably, or std::nullopt)");
  return true;
}

// The sink's list of hooks, if it has one, names exactly the hook members it has.
template <class S>
concept hooks_listed_truthfully = listed_as_named<S, hook::session_identity, names_handle_session_identity<S>> &&
                                  listed_as_named<S, hook::slot_origin, names_handle_slot_origin<S>> &&
                                  listed_as_named<S, hook::schema_change, names_handle_schema_change<S>> &&
                                  listed_as_named<S, hook::message, names_handle_message<S>> &&
                                  listed_as_named<S, hook::prepare, names_handle_prepare<S>> &&
                                  listed_as_named<S, hook::snapshot, names_handle_snapshot<S>> &&
                                  listed_as_named<S, hook::snapshot_complete, names_handle_snapshot_complete<S>> &&
                                  listed_as_named<S, hook::snapshot_progress, names_snapshot_progress<S>>;

// The optional hooks as a concept: each one absent, or declared exactly as the pipeline calls it,
// and listed in Sink::hooks when the sink lists them.
template <class S>
concept hooks_declared =
    (!names_handle_session_identity<S> || has_handle_session_identity<S>) &&
    (!names_handle_slot_origin<S> || has_handle_slot_origin<S>) &&
    (!names_handle_schema_change<S> || has_handle_schema_change<S>) &&
    (!names_handle_message<S> || has_handle_message<S>) && (!names_handle_prepare<S> || has_handle_prepare<S>) &&
    (!names_handle_snapshot<S> || has_handle_snapshot<S>) &&
    (!names_handle_snapshot_complete<S> || has_handle_snapshot_complete<S>) &&
    (!names_snapshot_progress<S> || has_snapshot_progress<S>) && hooks_listed_truthfully<S>;

}  // namespace detail

}  // namespace replicant

#endif  // REPLICANT_SINK_CONCEPTS_HPP
