// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_COMMON_CLI_HPP
#define REPLICANT_EXAMPLES_COMMON_CLI_HPP

/// @file
/// What the example programs share about their command line: the exit statuses, and reading
/// `--name value` / `--name=value` arguments without ever repeating a value.

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

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

}  // namespace replicant::examples

#endif  // REPLICANT_EXAMPLES_COMMON_CLI_HPP
