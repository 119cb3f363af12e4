// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CHECKPOINT_STORE_HPP
#define REPLICANT_CHECKPOINT_STORE_HPP

/// @file
/// replicant::checkpoint_store: where the library keeps a slot's checkpoint in lib mode, and how
/// its faults are told apart.

#include <replicant/core/error.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>

#include <concepts>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace replicant {

/**
 * A durable place for one commit LSN per replication slot, written by the library after the sink
 * returned (see @ref replicant::lib_owned_checkpoint).
 *
 * | Expression | Type | Semantics |
 * |---|---|---|
 * | `s.read(slot)` | `result<std::optional<lsn>>` | The commit LSN last written for `slot`, or `std::nullopt` if none was ever written. Called at every (re)connect. |
 * | `s.write(slot, at)` | `result<void>` | Makes `at` the checkpoint of `slot`, durably: once it returned, a crash of this process, of the machine or of the store's server does not lose it. |
 *
 * where `s` is an lvalue of `S`, `slot` a `const slot_name&` and `at` an `lsn`.
 *
 * An error is **transient** (retried `max_retries` times, `retry_backoff` apart, then the pipeline
 * halts `checkpoint_store_failed`) unless is_permanent_store_fault() says otherwise, in which case the
 * pipeline halts at once. A store reconnects by itself on the next call after a transient fault.
 * No error may carry a value or a path: error codes only.
 *
 * **Every call must end in bounded time.** The pipeline calls the store on the thread that delivers
 * to the sink: while a call waits, nothing is delivered, and a call that never returns would keep
 * the pipeline (and its stop()) waiting for ever. A store that can block (on a server, a lock, a
 * file system) needs a deadline of its own, and reports its expiry as a transient fault; the
 * library's two stores have one (`command_timeout`, `io_timeout`). Meanwhile the connection keeps
 * answering the server with the last durable position, so the walsender does not time out. A store
 * that also models @ref replicant::interruptible_store "interruptible_store" lets stop() end a call
 * at once.
 *
 * @par Laws
 * After `write(slot, at)` returned success, `read(slot)` returns `at` until the next write, across
 * process restarts. Writes of other slots do not change it.
 *
 * @par Exemplar
 * @code
 * struct my_store {
 *   auto read(const replicant::slot_name& slot) -> replicant::result<std::optional<replicant::lsn>>;
 *   auto write(const replicant::slot_name& slot, replicant::lsn at) -> replicant::result<void>;
 * };
 * static_assert(replicant::checkpoint_store<my_store>);
 * @endcode
 */
template <class S>
concept checkpoint_store = requires(S& s, const slot_name& slot, lsn at) {
  { s.read(slot) } -> std::same_as<result<std::optional<lsn>>>;
  { s.write(slot, at) } -> std::same_as<result<void>>;
};

/**
 * A @ref replicant::checkpoint_store "checkpoint_store" that also keeps the progress of an
 * incremental snapshot per slot: what a library-owned checkpoint needs for the
 * `incremental` snapshot mode.
 *
 * | Expression | Type | Semantics |
 * |---|---|---|
 * | `s.read_progress(slot)` | `result<std::optional<std::string>>` | The token last written for `slot`, or `std::nullopt` if none was ever written. Called when a session starts. |
 * | `s.write_progress(slot, token)` | `result<void>` | Makes `token` the progress of `slot`, durably (as `write`). Called after each chunk the sink stored. |
 *
 * where `s`, `slot` are as for `checkpoint_store` and `token` a `std::string_view`. The token is
 * opaque text (no NUL) holding a row key: keep it like row data. Faults are classified as for the
 * checkpoint, with the same retry budget.
 *
 * @par Laws
 * After `write_progress(slot, t)` returned success, `read_progress(slot)` returns `t` until the
 * next write, across process restarts, and independently of `write(slot, at)`.
 */
template <class S>
concept progress_store = checkpoint_store<S> && requires(S& s, const slot_name& slot, std::string_view token) {
  { s.read_progress(slot) } -> std::same_as<result<std::optional<std::string>>>;
  { s.write_progress(slot, token) } -> std::same_as<result<void>>;
};

/**
 * A @ref replicant::checkpoint_store "checkpoint_store" whose call in progress can be ended from
 * another thread: a pipeline's stop() calls `interrupt()`, so that stopping never waits for a store
 * that hangs.
 *
 * | Expression | Type | Semantics |
 * |---|---|---|
 * | `s.interrupt()` | `void`, `noexcept` | Ends the call in progress on another thread, if any, soon, with `errc::cancelled`. A call that starts afterwards is not affected (a pipeline stopping between two calls still makes its final checkpoint write). Async-signal-safe: it may be called from a signal handler, as stop() may. |
 *
 * A store may also report the SQLSTATE of its last server error, as `s.last_sqlstate()` (anything
 * convertible to `std::string_view`, empty when there is none); the pipeline then puts it in the
 * `checkpoint_store_failed` halt.
 */
template <class S>
concept interruptible_store = checkpoint_store<S> && requires(S& s) {
  { s.interrupt() } noexcept;
};

namespace detail {
// A store that can tell the SQLSTATE of its last server error (see interruptible_store).
template <class S>
concept reports_sqlstate = requires(const S& s) {
  { s.last_sqlstate() } -> std::convertible_to<std::string_view>;
};
}  // namespace detail

/**
 * Whether a checkpoint-store fault is permanent (retrying cannot help): the store holds data of
 * another shape or slot (`errc::store_mismatch`), or it was configured wrongly
 * (`errc::invalid_options`, `errc::invalid_identifier`). Everything else (a lost connection, a
 * server error, a failed file operation, a full disk, a call that timed out or was interrupted) is
 * transient.
 */
[[nodiscard]] inline auto is_permanent_store_fault(std::error_code ec) noexcept -> bool {
  return ec == errc::store_mismatch || ec == errc::invalid_options || ec == errc::invalid_identifier;
}

}  // namespace replicant

#endif  // REPLICANT_CHECKPOINT_STORE_HPP
