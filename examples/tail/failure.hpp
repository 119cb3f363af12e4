// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_TAIL_FAILURE_HPP
#define REPLICANT_EXAMPLES_TAIL_FAILURE_HPP

/// @file
/// How replicant-tail reports what went wrong: a value-free @ref failure (the step, a code, the
/// server's SQLSTATE, a fixed hint), the mapping of a replication pipeline's halt onto it,
/// `outcome<T>` (a value or a failure), and the exit statuses.

#include "../common/cli.hpp"

#include <replicant/core/error.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <variant>

namespace replicant::examples::tail {

// The exit statuses are shared with the other examples; `tail::exit_ok` etc. keep working.
using examples::exit_failure;
using examples::exit_ok;
using examples::exit_refused;

/**
 * Something that stopped replicant-tail, reduced to what is safe to print: which step failed, an
 * error code (a @ref replicant::errc, an @ref replicant::identifier_error or an OS error) or, for a
 * halt, its @ref replicant::halt_reason, the server's SQLSTATE when the server refused something,
 * and a fixed hint. There is deliberately no field for free text: no row value,
 * connection string, name or server message can end up in it.
 */
struct failure {
  /// What was being done, e.g. `"creating the slot"` (fixed text).
  std::string_view step;
  /// Why it failed: `errc::halted` when `reason` says why.
  std::error_code code;
  /// Why the pipeline halted or refused to start, or why replicant-tail's own check of the command
  /// line refused what the pipeline would refuse (e.g. `go_forward_required`); empty otherwise.
  std::optional<halt_reason> reason{};
  /// What to do about it (fixed text; may be empty).
  std::string_view hint{};
  /// The server's SQLSTATE, when a server error caused it (five characters, or empty).
  std::string sqlstate{};
  /// The underlying error when `code` is a summary, e.g. which shape rule a name broke for
  /// halt `invalid_identifier` (a @ref replicant::identifier_error; its message is fixed text).
  std::error_code cause{};
  /// The WAL position concerned, e.g. where malformed data was received.
  std::optional<lsn> at{};
  /// The attempt at which a retry budget ran out (replication commands, checkpoint file).
  std::optional<std::uint32_t> attempts{};
  /// The command-line option concerned, e.g. `--slot`. Only ever a name of the shape
  /// `--[a-z0-9-]+`, never a value (see options.hpp).
  std::string option{};
};

/**
 * Whether @p f should end the program with exit_refused (nothing was started) rather than
 * exit_failure: a bad command line or name, a start-time rejection of the pipeline (e.g.
 * `go_forward_required`), `slot_missing`, which the pipeline reports before it creates or starts
 * anything and which the command line fixes (`--create-slot`), and `snapshot_incomplete`, which it
 * also reports before anything starts, and which needs the slot dropped first. Never throws.
 */
[[nodiscard]] inline auto is_refusal(const failure& f) noexcept -> bool {
  if (f.reason) {
    return is_start_rejection(*f.reason) || *f.reason == halt_reason::slot_missing ||
           *f.reason == halt_reason::snapshot_incomplete;
  }
  return f.code.category() == identifier_category() || f.code == errc::invalid_options;
}

/**
 * The one-line, value-free description of @p f printed on stderr, e.g.
 * `replicant-tail: starting replication failed: the server reported an error [server_error];
 * sqlstate 55006; the slot is in use by another consumer`.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto describe(const failure& f) -> std::string {
  std::string out = "replicant-tail: ";
  out += f.step;
  if (!f.option.empty()) {
    out += ' ';
    out += f.option;
  }
  out += is_refusal(f) ? " refused: " : " failed: ";
  if (f.reason) {
    out += message(*f.reason);
  } else {
    out += f.code.message();
  }
  out += " [";
  if (f.reason) {
    out += to_string(*f.reason);
  } else if (f.code.category() == error_category()) {
    out += to_string(static_cast<errc>(f.code.value()));
  } else {
    out += f.code.category().name();
    out += ':';
    out += std::to_string(f.code.value());
  }
  out += ']';
  if (f.cause) {
    out += "; ";
    out += f.cause.message();
  }
  if (f.at) {
    out += "; at ";
    out += to_string(*f.at);
  }
  if (f.attempts) {
    out += "; after ";
    out += std::to_string(*f.attempts);
    out += *f.attempts == 1 ? " attempt" : " attempts";
  }
  if (!f.sqlstate.empty()) {
    out += "; sqlstate ";
    out += replicant::is_sqlstate(f.sqlstate) ? std::string_view{f.sqlstate} : std::string_view{"(malformed)"};
  }
  if (!f.hint.empty()) {
    out += "; ";
    out += f.hint;
  } else if (f.reason) {
    out += "; action: ";
    out += operator_action(*f.reason);
  }
  return out;
}

/**
 * Advice for the SQLSTATEs that replication commands commonly fail with (PROTOCOL.md sections 1.8
 * and 2.1), or nothing for others. Fixed text. Never throws.
 */
[[nodiscard]] constexpr auto sqlstate_hint(std::string_view sqlstate) noexcept -> std::string_view {
  if (sqlstate == "55006") return "the slot is in use by another consumer";
  if (sqlstate == "55000") return "the slot cannot be used; it may have been invalidated";
  if (sqlstate == "0A000") return "the server refused an option; try a lower --proto-version";
  if (sqlstate == "42704") return "the slot or a publication does not exist";
  if (sqlstate == "42501") return "the role needs the REPLICATION attribute";
  if (sqlstate == "53400") return "no replication slot is free: raise max_replication_slots or drop an unused slot";
  return {};
}

namespace detail {

// What replicant-tail was doing when the pipeline halted for @p reason, as the failure's step.
[[nodiscard]] constexpr auto halt_step(halt_reason reason) noexcept -> std::string_view {
  switch (reason) {
    case halt_reason::sink_failed: return "writing the output";
    case halt_reason::transaction_too_large: return "assembling a transaction";
    case halt_reason::slot_invalidated:
    case halt_reason::slot_missing:
    case halt_reason::slot_synced_unpromoted: return "checking the slot";
    case halt_reason::publication_missing: return "checking the publications";
    case halt_reason::command_error_limit: return "starting replication";
    case halt_reason::checkpoint_store_failed: return "keeping the checkpoint in";  // + " --checkpoint-file"
    case halt_reason::decode_failure: return "reading the stream";
    case halt_reason::decoder_unsupported_on_server:
    case halt_reason::standby_unsupported: return "checking the server";
    case halt_reason::go_forward_required:
    case halt_reason::snapshot_incomplete: return "choosing where to start";
    case halt_reason::snapshot_failed:
    case halt_reason::snapshot_unsupported: return "taking the snapshot";
    default: return is_start_rejection(reason) ? "starting" : "streaming";
  }
}

// What to do about @p h in replicant-tail's terms (its options rather than the library's), or
// nothing to fall back on the library's operator action.
[[nodiscard]] inline auto halt_hint(const halt& h) noexcept -> std::string_view {
  switch (h.reason) {
    case halt_reason::go_forward_required:
      return "there is no checkpoint yet: pass --go-forward-only to start at the slot's acknowledged position (a "
             "slot made by --create-slot starts now); changes before it are never shown";
    case halt_reason::slot_missing:
      return "the slot does not exist: check --slot, or pass --create-slot --go-forward-only (with a checkpoint, "
             "--snapshot does not create a slot: one made now would start after a gap)";
    case halt_reason::snapshot_incomplete:
      return "the slot exists but no checkpoint says that its snapshot was written: an earlier --snapshot run was "
             "interrupted, or kept its checkpoint in memory only. Drop the slot (pg_drop_replication_slot) and run "
             "again for a new snapshot; or, if that snapshot was written in full, continue with --go-forward-only "
             "instead of --snapshot";
    case halt_reason::snapshot_failed:
      return "reading the published tables failed: check that the role may read them and that the server stays "
             "reachable, then drop the slot and run again";
    case halt_reason::publication_missing: return "create the publication, or correct --publication";
    case halt_reason::command_error_limit: return h.sqlstate ? sqlstate_hint(*h.sqlstate) : std::string_view{};
    case halt_reason::decoder_unsupported_on_server: return "replicant-tail needs PostgreSQL 15 or later";
    case halt_reason::transaction_too_large:
      return "one transaction is larger than replicant-tail's memory budget (64 MiB); it cannot be printed";
    case halt_reason::checkpoint_store_failed:
      if (h.cause == errc::store_mismatch) {
        return "the file is not a checkpoint of this slot (another slot's, or not a checkpoint file): check "
               "--checkpoint-file and --slot";
      }
      return "check that the file's directory exists and is writable, and that the disk has room";
    case halt_reason::sink_failed:
      if (h.cause == errc::decode_failure) return "a value could not be decoded; report it with the LSN";
      return "check where standard output goes (disk space, permissions)";
    default: return {};
  }
}

}  // namespace detail

/**
 * The @ref failure that reports the halt @p h of replicant-tail's replication pipeline: the step,
 * the halt reason, its cause, position, SQLSTATE and attempts, and a hint in terms of
 * replicant-tail's options. Value-free, as the halt is: no table name is carried over.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto from_halt(const halt& h) -> failure {
  failure f{.step = detail::halt_step(h.reason),
            .code = make_error_code(errc::halted),
            .reason = h.reason,
            .hint = detail::halt_hint(h),
            .sqlstate = h.sqlstate.value_or(std::string{}),
            .cause = h.cause,
            .at = h.at,
            .attempts = h.attempts};
  if (h.reason == halt_reason::checkpoint_store_failed) f.option = "--checkpoint-file";
  return f;
}

/**
 * Whether the halt @p h means that the reader of standard output went away (`replicant-tail | head`
 * after its lines): the sink failed with `EPIPE`. That is how a reader says it has seen enough, so
 * it ends the run normally; the transaction that could not be written was not checkpointed. Never
 * throws.
 */
[[nodiscard]] inline auto is_closed_output(const halt& h) noexcept -> bool {
  return h.reason == halt_reason::sink_failed && h.cause == std::errc::broken_pipe;
}

/**
 * A value of type `T`, or the @ref failure that prevented it: the return type of the start-up
 * steps, which need more context than a bare `std::error_code`.
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe.
 */
template <class T>
class outcome {
 public:
  /// A success holding @p v.
  outcome(T v) : state_(std::in_place_index<0>, std::move(v)) {}  // NOLINT(google-explicit-constructor)
  /// A failure.
  outcome(failure f) : state_(std::in_place_index<1>, std::move(f)) {}  // NOLINT(google-explicit-constructor)

  /// True on success.
  [[nodiscard]] explicit operator bool() const noexcept { return state_.index() == 0; }
  /// The value. @pre success.
  [[nodiscard]] auto operator*() noexcept -> T& { return *std::get_if<0>(&state_); }
  /// The value. @pre success.
  [[nodiscard]] auto operator->() noexcept -> T* { return std::get_if<0>(&state_); }
  /// The failure. @pre failure.
  [[nodiscard]] auto error() const noexcept -> const failure& { return *std::get_if<1>(&state_); }

 private:
  std::variant<T, failure> state_;
};

/// A success without a value, or a failure.
template <>
class outcome<void> {
 public:
  /// Success.
  outcome() = default;
  /// A failure.
  outcome(failure f) : failure_(std::move(f)), failed_(true) {}  // NOLINT(google-explicit-constructor)

  /// True on success.
  [[nodiscard]] explicit operator bool() const noexcept { return !failed_; }
  /// The failure. @pre failure.
  [[nodiscard]] auto error() const noexcept -> const failure& { return failure_; }

 private:
  failure failure_{};
  bool failed_ = false;
};

}  // namespace replicant::examples::tail

#endif  // REPLICANT_EXAMPLES_TAIL_FAILURE_HPP
