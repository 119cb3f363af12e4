// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_JSONL_SINK_OPTIONS_HPP
#define REPLICANT_EXAMPLES_JSONL_SINK_OPTIONS_HPP

/// @file
/// replicant-jsonl-sink's command line: parsing and validation, before anything is opened or
/// connected. A refusal names the option, never the value given.

#include "../common/cli.hpp"
#include "../common/replication_options.hpp"

#include <replicant/checkpoint/lib_owned.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace replicant::examples::jsonl {

/// Why the command line was refused (the programs share the type).
using examples::refusal;

/**
 * What the command line asked for, validated.
 *
 * @par Thread safety
 * A value type.
 */
struct options : replication_options {
  /// The file the lines are appended to.
  std::filesystem::path output;
  /// The checkpoint file.
  std::filesystem::path checkpoint_file;
  /// Batched checkpoint writes, if asked for.
  std::optional<checkpoint_batching> batching;
  /// Print the usage text and exit.
  bool help = false;
};

namespace detail {

// The command line as text, before its values are checked: CLI11 reads into these.
struct arguments {
  command_line cli{"replicant-jsonl-sink",
                   "Appends the committed changes of PostgreSQL publications to a file as JSON lines: one line per\n"
                   "change, then one commit line per transaction, made durable (fsync) before the transaction counts\n"
                   "as written. The position of the last transaction written is kept in a checkpoint file, written\n"
                   "after the lines, so a restart continues after it: nothing is skipped, and after a crash at most\n"
                   "the last transaction (or the last --checkpoint-every batch) is written again.",
                   "Ctrl-C (SIGINT) or SIGTERM stops cleanly. Exit status: 0 when stopped, 1 on a failure, 2 when\n"
                   "refused to start. See docs/jsonl_sink.md."};
  replication_arguments replication{
      cli,
      {.create_slot_help = "create the slot if it does not exist; needs --go-forward-only",
       .go_forward_only_help = "with no checkpoint yet, start at the slot's acknowledged position\n(a new slot: the "
                               "current end of WAL); earlier changes are never written"}};
  std::string output;
  std::string checkpoint_file;
  std::string every;
  std::string delay_ms = "1000";

  arguments() {
    cli.text("--output", output, "PATH", "", "the file to append to; created if missing").required();
    cli.text("--checkpoint-file", checkpoint_file, "PATH", "the output path + \".checkpoint\"",
             "where the checkpoint is kept");
    cli.text("--checkpoint-every", every, "N", "1: after each transaction",
             "write the checkpoint once per N transactions (1 to 100000);\na crash may then write up to N "
             "transactions again");
    cli.text("--checkpoint-delay-ms", delay_ms, "MS", "1000",
             "with --checkpoint-every: also write it once the oldest transaction\nnot yet covered is MS old (1 to "
             "60000)");
  }
  arguments(const arguments&) = delete;
  auto operator=(const arguments&) -> arguments& = delete;
};

// The values @p a read, checked, into @p o: parse_options() after the syntax and `--help`.
// @throws std::bad_alloc only.
inline auto check(const arguments& a, options& o) -> std::optional<refusal> {
  o.dsn = "fallback_application_name=replicant-jsonl-sink";
  if (auto bad = a.replication.check(o)) return bad->to_refusal();
  if (a.output.empty()) return refusal{"--output needs a path"};
  o.output = std::filesystem::path{a.output};
  const bool has_checkpoint_file = a.cli.given("--checkpoint-file");
  if (has_checkpoint_file && a.checkpoint_file.empty()) return refusal{"--checkpoint-file needs a path"};
  std::optional<std::uint32_t> every;
  if (a.cli.given("--checkpoint-every")) {
    every = parse_unsigned(a.every, 1, 100000);
    if (!every) return refusal{"--checkpoint-every is 1 to 100000 transactions"};
  }
  const bool has_delay = a.cli.given("--checkpoint-delay-ms");
  const auto delay_ms = parse_unsigned(a.delay_ms, 1, 60000);
  if (!delay_ms) return refusal{"--checkpoint-delay-ms is 1 to 60000 milliseconds"};
  if (auto bad = check_created_slot_goes_forward(o)) return bad;
  if (has_delay && !every) return refusal{"--checkpoint-delay-ms applies only with --checkpoint-every"};
  if (every) {
    o.batching = checkpoint_batching{.max_transactions = *every, .max_delay = std::chrono::milliseconds{*delay_ms}};
  }
  o.checkpoint_file = has_checkpoint_file ? std::filesystem::path{a.checkpoint_file}
                                          : std::filesystem::path{o.output.string() + ".checkpoint"};
  if (o.checkpoint_file == o.output) return refusal{"--checkpoint-file must differ from --output"};
  return std::nullopt;
}

}  // namespace detail

/// The `--help` text: every option with its default. @throws std::bad_alloc only.
[[nodiscard]] inline auto usage() -> std::string { return usage_of<detail::arguments>(); }

/**
 * Parses and validates @p args (the arguments after the program name). Options take their value
 * as the next argument or after `=`.
 *
 * Checks: every option is known and has its value; `--slot`, at least one `--publication` and
 * `--output` are given unless `--help` is; the names have the shape PostgreSQL accepts; the numbers
 * are in range; `--create-slot` comes with `--go-forward-only` (a created slot starts now, so the
 * gap must be accepted on the command line); `--checkpoint-delay-ms` comes with
 * `--checkpoint-every`.
 *
 * @return the options, or a @ref refusal.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto parse_options(std::span<const char* const> args) -> std::variant<options, refusal> {
  return parse_command_line<options, detail::arguments>(args, detail::check);
}

}  // namespace replicant::examples::jsonl

#endif  // REPLICANT_EXAMPLES_JSONL_SINK_OPTIONS_HPP
