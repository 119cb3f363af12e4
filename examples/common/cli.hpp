// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_COMMON_CLI_HPP
#define REPLICANT_EXAMPLES_COMMON_CLI_HPP

/// @file
/// What the example programs share about their command line: the exit statuses, and a CLI11 app
/// that reads every option as text and refuses a command line without ever repeating a value.
///
/// CLI11 does the syntax (`--name value` and `--name=value`, unknown options, missing values,
/// repeats) and writes `--help` with every option's default; it is compiled in cli.cpp only. Its
/// own conversions and validators are not used: their messages quote the value they refused, and a
/// value may be a password in a connection string pasted into the wrong place. Each program checks
/// its values itself, with fixed text that names the option only.

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <variant>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace replicant::examples {

/// Exit status: stopped on request (Ctrl-C, SIGTERM), or the output was closed.
inline constexpr int exit_ok = 0;
/// Exit status: a failure while connecting or running (connection lost, server error, I/O).
inline constexpr int exit_failure = 1;
/// Exit status: refused to start (bad command line, invalid name, missing start mode).
inline constexpr int exit_refused = 2;

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

/// What is wrong with one option of a command line, as CLI11 found it or as a check of its value
/// did: the option concerned (a name of the form `--[a-z0-9-]+`, `(not shown)`, or empty) and
/// fixed text, never the value.
struct option_error {
  /// The option, e.g. `--slot`; empty when none can be named.
  std::string option;
  /// What is wrong with it, e.g. `"needs a value"` (fixed text).
  std::string_view problem;
  /// The rule a malformed name broke (a @ref replicant::identifier_error); empty otherwise.
  std::error_code cause{};

  /// The refusal that says it, e.g. `"--slot needs a value"`. @throws std::bad_alloc only.
  [[nodiscard]] auto to_refusal() const -> refusal {
    return refusal{option.empty() ? std::string{problem} : option + " " + std::string{problem}};
  }
};

/**
 * A program's command line: a CLI11 app whose options are all read as text (or as flags), with a
 * default shown in `--help` for each, and a parse that turns CLI11's errors into value-free
 * @ref option_error "option errors".
 *
 * CLI11 itself is compiled once, in `cli.cpp` (the `replicant::examples_cli` library): it is all
 * inline code, and parsing it cost every program and test that includes this header about nine
 * seconds of compile time.
 *
 * @par Example
 * @code
 * command_line cli{"replicant-x", "Streams ...", "Exit status: ..."};
 * std::string slot;
 * cli.text("--slot", slot, "NAME", "", "the slot").required();
 * if (auto bad = cli.parse(args)) return bad->to_refusal();
 * if (cli.help_requested()) ...;
 * @endcode
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe.
 */
class command_line {
 public:
  /// An option declared on a command_line, to say more about it; valid as long as the line.
  class option {
   public:
    /// Makes the option required: a command line without it is refused, and `--help` says
    /// `REQUIRED`. @return this option. @throws std::bad_alloc only.
    auto required() -> option&;
    /// Lists the option under @p heading in `--help`. @return this option.
    /// @throws std::bad_alloc only.
    auto group(const std::string& heading) -> option&;

   private:
    friend class command_line;
    explicit option(CLI::Option* declared) noexcept : declared_(declared) {}
    CLI::Option* declared_;
  };

  /// The app of program @p name, described by @p description, with @p footer after the options.
  /// @throws std::bad_alloc only.
  command_line(std::string name, std::string description, std::string footer);
  ~command_line();
  command_line(const command_line&) = delete;
  auto operator=(const command_line&) -> command_line& = delete;
  command_line(command_line&&) = delete;
  auto operator=(command_line&&) -> command_line& = delete;

  /**
   * An option that takes one value, read as text into @p into (the last one given wins).
   * @param label the value's name in `--help`, e.g. `NAME`.
   * @param shown_default the default `--help` shows (empty: none, for a required option).
   * @throws std::bad_alloc only.
   */
  auto text(const std::string& names, std::string& into, const std::string& label, const std::string& shown_default,
            const std::string& description) -> option;

  /// An option that may be repeated, each value read as text into @p into, in order.
  /// @throws std::bad_alloc only.
  auto texts(const std::string& names, std::vector<std::string>& into, const std::string& label,
             const std::string& shown_default, const std::string& description) -> option;

  /// A flag, off unless given; it takes no value (`--flag=x` is refused).
  /// @throws std::bad_alloc only.
  auto flag(const std::string& names, bool& into, const std::string& description) -> option;

  /**
   * Reads @p args (the arguments after the program name) into the options' variables.
   * @return nothing when they were read, or when `--help` was asked for (help_requested()); or
   * what is wrong, value-free.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto parse(std::span<const char* const> args) -> std::optional<option_error>;

  /// Whether option @p name (e.g. `--slot`) was on the command line parse() read.
  /// @throws std::bad_alloc only.
  [[nodiscard]] auto given(const std::string& name) const -> bool;

  /// Whether the command line asked for `--help`. Never throws.
  [[nodiscard]] auto help_requested() const noexcept -> bool { return help_; }

  /// The `--help` text. @throws std::bad_alloc only.
  [[nodiscard]] auto help() const -> std::string;

 private:
  std::unique_ptr<CLI::App> app_;
  bool help_ = false;
};

/**
 * The pipeline's memory budget, `--max-inflight-mib N` (default 64), for a program that lets it
 * reach 64 GiB: declare() puts it on a @ref command_line, check() reads its value.
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe.
 */
class max_inflight_argument {
 public:
  /// Declares the option on @p cli, which must outlive this. @throws std::bad_alloc only.
  auto declare(command_line& cli) -> void {
    cli.text("--max-inflight-mib", text_, "N", "64", "memory budget of the pipeline in MiB");
  }
  /// Stores the value read, 1 to 65,536 MiB, in @p into. @return the refusal, or nothing.
  /// @throws std::bad_alloc only.
  [[nodiscard]] auto check(std::uint32_t& into) const -> std::optional<refusal> {
    const auto mib = parse_unsigned(text_, 1, 65'536);
    if (!mib) return refusal{"--max-inflight-mib needs a number from 1 to 65536"};
    into = *mib;
    return std::nullopt;
  }

 private:
  std::string text_ = "64";
};

/**
 * The parse every example program's command line goes through. @p Arguments is the program's
 * command line as text: default-constructible, with its @ref command_line as member `cli`. It reads
 * @p args: a syntax error is refused, value-free; `--help` gives @p Options with `help` set and
 * nothing checked; anything else is checked by @p check (`(const Arguments&, Options&) ->
 * std::optional<refusal>`), which fills the options or refuses.
 * @throws std::bad_alloc only.
 */
template <class Options, class Arguments, class Check>
[[nodiscard]] auto parse_command_line(std::span<const char* const> args, Check check)
    -> std::variant<Options, refusal> {
  Arguments a;
  if (auto bad = a.cli.parse(args)) return bad->to_refusal();
  Options o;
  if (a.cli.help_requested()) {
    o.help = true;
    return o;
  }
  if (auto bad = check(std::as_const(a), o)) return std::move(*bad);
  return o;
}

/// The `--help` text of the command line @p Arguments declares: every option with its default.
/// @throws std::bad_alloc only.
template <class Arguments>
[[nodiscard]] auto usage_of() -> std::string {
  const Arguments a;
  return a.cli.help();
}

}  // namespace replicant::examples

#endif  // REPLICANT_EXAMPLES_COMMON_CLI_HPP
