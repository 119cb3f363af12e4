// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_COMMON_CLI_HPP
#define REPLICANT_EXAMPLES_COMMON_CLI_HPP

/// @file
/// What the example programs share about their command line: the exit statuses, and reading
/// `--name value` / `--name=value` arguments without ever repeating a value.

#include <replicant/core/identifier.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/pipeline/options.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace replicant::examples {

/// Exit status: stopped on request (Ctrl-C, SIGTERM), or the output was closed.
inline constexpr int exit_ok = 0;
/// Exit status: a failure while connecting or running (connection lost, server error, I/O).
inline constexpr int exit_failure = 1;
/// Exit status: refused to start (bad command line, invalid name, missing start mode).
inline constexpr int exit_refused = 2;

/**
 * Walks the arguments after the program name, one option at a time. An option's value is the
 * next argument or follows the first `=` (`--slot s` or `--slot=s`).
 *
 * @par Example
 * @code
 * argument_reader reader{args};
 * while (reader.next()) {
 *   if (reader.name() == "--slot") slot = reader.take_value();
 * }
 * @endcode
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe.
 */
class argument_reader {
 public:
  /// Reads @p args, which must outlive the reader. Never throws.
  explicit argument_reader(std::span<const char* const> args) noexcept : args_(args) {}

  /// Moves to the next argument. @return false when none is left. Never throws.
  [[nodiscard]] auto next() noexcept -> bool {
    if (next_ >= args_.size()) return false;
    const std::string_view arg = args_[next_++];
    const auto eq = arg.find('=');
    argument_ = arg;
    name_ = arg.substr(0, eq);
    inline_value_.reset();
    if (eq != std::string_view::npos) inline_value_ = arg.substr(eq + 1);
    return true;
  }

  /// The whole current argument. Never throws.
  [[nodiscard]] auto argument() const noexcept -> std::string_view { return argument_; }

  /// The current argument up to its first `=`: the option's name. Never throws.
  [[nodiscard]] auto name() const noexcept -> std::string_view { return name_; }

  /// Whether the current argument carries a value after `=`. Never throws.
  [[nodiscard]] auto has_inline_value() const noexcept -> bool { return inline_value_.has_value(); }

  /// The current option's value: what follows `=`, or else the next argument, which is then
  /// consumed. Nothing when there is neither. Never throws.
  [[nodiscard]] auto take_value() noexcept -> std::optional<std::string_view> {
    if (inline_value_) return inline_value_;
    if (next_ >= args_.size()) return std::nullopt;
    return std::string_view{args_[next_++]};
  }

 private:
  std::span<const char* const> args_;
  std::size_t next_ = 0;
  std::string_view argument_;
  std::string_view name_;
  std::optional<std::string_view> inline_value_;
};

/**
 * The name of option @p arg (up to its first `=`) when it may be echoed in an error: `--` and at
 * most 30 lower-case letters, digits or dashes. Anything else (a value pasted in the wrong place,
 * a secret) is never repeated: the result is then `(not shown)`.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto printable_option_name(std::string_view arg) -> std::string {
  const auto name = arg.substr(0, arg.find('='));
  const bool plain = name.size() > 2 && name.size() <= 32 && name.starts_with("--") &&
                     std::all_of(name.begin() + 2, name.end(),
                                 [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
  return plain ? std::string{name} : std::string{"(not shown)"};
}

/// @p text as a decimal number from @p low to @p high, or nothing (also on trailing characters).
/// Never throws.
[[nodiscard]] inline auto parse_unsigned(std::string_view text, std::uint32_t low, std::uint32_t high) noexcept
    -> std::optional<std::uint32_t> {
  std::uint32_t v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc{} || r.ptr != text.data() + text.size() || v < low || v > high) return std::nullopt;
  return v;
}

/// Why a command line was refused: fixed text naming the option, never a value.
struct refusal {
  /// What is wrong, e.g. `"--slot is 1 to 63 characters of a-z, 0-9 and _"`.
  std::string reason;
};

/**
 * The options of a program that follows one slot: where to connect, which slot and publications,
 * whether to create the slot, and how often to report to the server. Programs derive their own
 * options from it and read these with read_slot_option().
 *
 * @par Thread safety
 * A value type.
 */
struct slot_options {
  /// The libpq connection string; empty lets libpq read the PG* variables.
  std::string dsn;
  /// The replication slot (validated with identifier::validate_slot_name).
  std::string slot;
  /// The publications, without duplicates (each validated with identifier::validate).
  std::vector<std::string> publications;
  /// Create the slot when it does not exist.
  bool create_slot = false;
  /// Time between periodic status updates.
  std::chrono::seconds status_interval{10};
};

/// What read_slot_option() made of the current argument.
struct option_read {
  /// Whether the argument is one of the slot options (then it was read, or refused).
  bool matched = false;
  /// Why its value was refused, if it was.
  std::optional<refusal> refused;
};

/**
 * Reads the current argument of @p reader into @p into when it is `--dsn`, `--slot`,
 * `--publication` (repeatable; a repeat is kept once), `--create-slot` or `--status-interval`
 * (1 to 3600 seconds).
 * @return whether it was one of them, and the refusal of its value if any.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto read_slot_option(argument_reader& reader, slot_options& into) -> option_read {
  const std::string_view name = reader.name();
  const auto refuse = [](std::string reason) {
    return option_read{.matched = true, .refused = refusal{std::move(reason)}};
  };
  if (name == "--create-slot") {
    if (reader.has_inline_value()) return refuse("--create-slot takes no value");
    into.create_slot = true;
  } else if (name == "--dsn") {
    const auto v = reader.take_value();
    if (!v) return refuse("--dsn needs a connection string");
    into.dsn = std::string{*v};
  } else if (name == "--slot") {
    const auto v = reader.take_value();
    if (!v || !identifier::validate_slot_name(*v)) return refuse("--slot is 1 to 63 characters of a-z, 0-9 and _");
    into.slot = std::string{*v};
  } else if (name == "--publication") {
    const auto v = reader.take_value();
    if (!v || !identifier::validate(*v)) {
      return refuse("--publication is a plain identifier: a letter or _, then letters, digits, _ or $");
    }
    if (std::find(into.publications.begin(), into.publications.end(), *v) == into.publications.end()) {
      into.publications.emplace_back(*v);
    }
  } else if (name == "--status-interval") {
    const auto v = reader.take_value();
    const auto n = v ? parse_unsigned(*v, 1, 3600) : std::nullopt;
    if (!n) return refuse("--status-interval is 1 to 3600 seconds");
    into.status_interval = std::chrono::seconds{*n};
  } else {
    return {};
  }
  return option_read{.matched = true, .refused = std::nullopt};
}

/**
 * What pgoutput is asked for: the publications of @p o; everything else keeps pgoutput's defaults.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto pgoutput_options_for_slot(const slot_options& o) -> pgoutput_options {
  return pgoutput_options{.publications = o.publications};
}

/**
 * The replication pipeline's options for @p o: everything else keeps the pipeline's defaults.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto pipeline_options_for_slot(const slot_options& o) -> pipeline_options {
  pipeline_options p;
  p.conninfo = o.dsn;
  p.slot = o.slot;
  p.create_slot = o.create_slot;
  p.status_interval = o.status_interval;
  return p;
}

/**
 * Checks that @p o names a slot and at least one publication.
 * @return the refusal, or nothing. @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto missing_slot_option(const slot_options& o) -> std::optional<refusal> {
  if (o.slot.empty()) return refusal{"--slot is required (see --help)"};
  if (o.publications.empty()) return refusal{"at least one --publication is required (see --help)"};
  return std::nullopt;
}

}  // namespace replicant::examples

#endif  // REPLICANT_EXAMPLES_COMMON_CLI_HPP
