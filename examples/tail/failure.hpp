// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_TAIL_FAILURE_HPP
#define REPLICANT_EXAMPLES_TAIL_FAILURE_HPP

/// @file
/// How replicant-tail reports what went wrong: a value-free @ref failure (the step, a code, the
/// server's SQLSTATE, a fixed hint), `outcome<T>` (a value or a failure), and the exit statuses.

#include "../common/cli.hpp"

#include <replicant/error.hpp>
#include <replicant/halt.hpp>
#include <replicant/identifier.hpp>
#include <replicant/lsn.hpp>

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
 * error code (a @ref replicant::errc, a @ref replicant::halt_reason, an
 * @ref replicant::identifier_error or an OS error), the server's SQLSTATE when the server refused
 * something, and a fixed hint. There is deliberately no field for free text: no row value,
 * connection string, name or server message can end up in it.
 */
struct failure {
  /// What was being done, e.g. `"creating the slot"` (fixed text).
  std::string_view step;
  /// Why it failed.
  std::error_code code;
  /// What to do about it (fixed text; may be empty).
  std::string_view hint{};
  /// The server's SQLSTATE, when a server error caused it (five characters, or empty).
  std::string sqlstate{};
  /// The underlying error when `code` is a summary, e.g. which shape rule a name broke for
  /// halt `invalid_identifier` (a @ref replicant::identifier_error; its message is fixed text).
  std::error_code cause{};
  /// The WAL position concerned, e.g. where malformed data was received.
  std::optional<lsn> at{};
  /// The command-line option concerned, e.g. `--slot`. Only ever a name of the shape
  /// `--[a-z0-9-]+`, never a value (see options.hpp).
  std::string option{};
};

/// Whether @p f should end the program with exit_refused (nothing was started) rather than
/// exit_failure. Never throws.
[[nodiscard]] inline auto is_refusal(const failure& f) noexcept -> bool {
  if (f.code.category() == halt_category()) return is_start_rejection(static_cast<halt_reason>(f.code.value()));
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
  out += f.code.message();
  out += " [";
  if (f.code.category() == halt_category()) {
    out += to_string(static_cast<halt_reason>(f.code.value()));
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
  if (!f.sqlstate.empty()) {
    out += "; sqlstate ";
    out += replicant::detail::is_sqlstate(f.sqlstate) ? std::string_view{f.sqlstate} : std::string_view{"(malformed)"};
  }
  if (!f.hint.empty()) {
    out += "; ";
    out += f.hint;
  } else if (f.code.category() == halt_category()) {
    out += "; action: ";
    out += operator_action(static_cast<halt_reason>(f.code.value()));
  }
  return out;
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
