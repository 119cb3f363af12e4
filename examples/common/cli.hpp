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

#include <replicant/core/identifier.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/pipeline/options.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
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

/// What is wrong with the shape of a command line, as CLI11 found it: the option concerned (a name
/// of the form `--[a-z0-9-]+`, `(not shown)`, or empty) and fixed text.
struct syntax_error {
  /// The option, e.g. `--slot`; empty when none can be named.
  std::string option;
  /// What is wrong with it, e.g. `"needs a value"` (fixed text).
  std::string_view problem;

  /// The refusal that says it, e.g. `"--slot needs a value"`. @throws std::bad_alloc only.
  [[nodiscard]] auto to_refusal() const -> refusal {
    return refusal{option.empty() ? std::string{problem} : option + " " + std::string{problem}};
  }
};

/**
 * A program's command line: a CLI11 app whose options are all read as text (or as flags), with a
 * default shown in `--help` for each, and a parse that turns CLI11's errors into value-free
 * @ref syntax_error "syntax errors".
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
  [[nodiscard]] auto parse(std::span<const char* const> args) -> std::optional<syntax_error>;

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
 * The options of a program that follows one slot: where to connect, which slot and publications,
 * whether to create the slot, and how often to report to the server. Programs derive their own
 * options from it; @ref slot_arguments declares and checks them.
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

/// @p names without repeats, in the order first given. @throws std::bad_alloc only.
[[nodiscard]] inline auto without_repeats(const std::vector<std::string>& names) -> std::vector<std::string> {
  std::vector<std::string> kept;
  for (const auto& n : names) {
    if (std::find(kept.begin(), kept.end(), n) == kept.end()) kept.push_back(n);
  }
  return kept;
}

/**
 * The slot options on a @ref command_line: `--dsn`, `--slot` (required), `--publication`
 * (repeatable, required), `--create-slot` and `--status-interval` (1 to 3600 seconds, default
 * 10), read as text by parse() and checked by check().
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe.
 */
class slot_arguments {
 public:
  /// Declares the options on @p cli, which must outlive this. @p create_slot_help describes
  /// `--create-slot` (what it needs differs between programs). @p required: `--slot` and
  /// `--publication` are required by CLI11 (and marked so in `--help`); a program that needs them
  /// only in some modes leaves that to check(). @throws std::bad_alloc only.
  slot_arguments(command_line& cli, const std::string& create_slot_help, bool required = true) {
    cli.text("--dsn", dsn_, "CONNINFO", "the PG* environment variables", "libpq connection string or URI");
    auto slot = cli.text("--slot", slot_, "NAME", required ? "" : "none",
                         "logical replication slot ([a-z0-9_], at most 63 bytes)");
    auto publication = cli.texts("--publication", publications_, "NAME", required ? "" : "none",
                                 "publication to stream (repeatable; at least one)");
    if (required) {
      slot.required();
      publication.required();
    }
    cli.flag("--create-slot", create_slot_, create_slot_help);
    cli.text("--status-interval", status_interval_, "SECS", "10", "seconds between status updates to the server");
  }

  /**
   * Checks the values read and stores them in @p into (its `dsn` is kept when `--dsn` was not
   * given). @return the refusal, or nothing. @throws std::bad_alloc only.
   */
  [[nodiscard]] auto check(slot_options& into) const -> std::optional<refusal> {
    if (slot_.empty()) return refusal{"--slot is required (see --help)"};
    if (publications_.empty()) return refusal{"at least one --publication is required (see --help)"};
    if (!identifier::validate_slot_name(slot_)) return refusal{"--slot is 1 to 63 characters of a-z, 0-9 and _"};
    for (const auto& p : publications_) {
      if (!identifier::validate(p)) {
        return refusal{"--publication is a plain identifier: a letter or _, then letters, digits, _ or $"};
      }
    }
    const auto interval = parse_unsigned(status_interval_, 1, 3600);
    if (!interval) return refusal{"--status-interval is 1 to 3600 seconds"};
    if (!dsn_.empty()) into.dsn = dsn_;
    into.slot = slot_;
    into.publications = without_repeats(publications_);
    into.create_slot = create_slot_;
    into.status_interval = std::chrono::seconds{*interval};
    return std::nullopt;
  }

 private:
  std::string dsn_;
  std::string slot_;
  std::vector<std::string> publications_;
  bool create_slot_ = false;
  std::string status_interval_ = "10";
};

/**
 * `--go-forward-only` with `--create-slot`, for a program that reads a slot from its start: a slot
 * created now starts at the current end of WAL, so the gap must be accepted on the command line.
 * @return the refusal, or nothing. @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto check_created_slot_goes_forward(const slot_options& o, bool go_forward_only)
    -> std::optional<refusal> {
  if (o.create_slot && !go_forward_only) {
    return refusal{"--create-slot needs --go-forward-only: a slot created now never shows earlier changes"};
  }
  return std::nullopt;
}

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

}  // namespace replicant::examples

#endif  // REPLICANT_EXAMPLES_COMMON_CLI_HPP
