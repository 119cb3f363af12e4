// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_JSONL_SINK_OPTIONS_HPP
#define REPLICANT_EXAMPLES_JSONL_SINK_OPTIONS_HPP

/// @file
/// replicant-jsonl-sink's command line: parsing and validation, before anything is opened or
/// connected. A refusal names the option, never the value given.

#include "../common/cli.hpp"

#include <replicant/checkpoint/lib_owned.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/pipeline/options.hpp>

#include <algorithm>
#include <chrono>
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

/// The usage text printed by `--help`.
inline constexpr std::string_view usage_text =
    R"(Usage: replicant-jsonl-sink --slot NAME --publication NAME --output PATH [options]

Appends the committed changes of PostgreSQL publications to a file as JSON lines: one line per
change, then one commit line per transaction, made durable (fsync) before the transaction counts
as written. The position of the last transaction written is kept in a checkpoint file, written
after the lines, so a restart continues after it: nothing is skipped, and after a crash at most
the last transaction (or the last --checkpoint-every batch) is written again.

Options:
  --dsn CONNINFO             libpq connection string or URI (default: the PG* environment variables)
  --slot NAME                logical replication slot ([a-z0-9_], at most 63 bytes)
  --publication NAME         publication to stream (repeatable; at least one)
  --output PATH              the file to append to; created if missing
  --checkpoint-file PATH     where the checkpoint is kept (default: the output path + ".checkpoint")
  --create-slot              create the slot if it does not exist; needs --go-forward-only
  --go-forward-only          with no checkpoint yet, start at the slot's acknowledged position (a
                             new slot: the current end of WAL); earlier changes are never written
  --checkpoint-every N       write the checkpoint once per N transactions (1 to 100000) instead of
                             after each one; a crash may then write up to N transactions again
  --checkpoint-delay-ms MS   with --checkpoint-every: also write it once the oldest transaction not
                             yet covered is MS old (1 to 60000; default 1000)
  --status-interval SECS     seconds between status updates to the server (default: 10)
  -h, --help                 print this help and exit

Ctrl-C (SIGINT) or SIGTERM stops cleanly. Exit status: 0 when stopped, 1 on a failure, 2 when
refused to start. See docs/jsonl_sink.md.
)";

/**
 * What the command line asked for, validated.
 *
 * @par Thread safety
 * A value type.
 */
struct options : slot_options {
  /// The file the lines are appended to.
  std::filesystem::path output;
  /// The checkpoint file.
  std::filesystem::path checkpoint_file;
  /// With no checkpoint, start at the slot's acknowledged position.
  bool go_forward_only = false;
  /// Batched checkpoint writes, if asked for.
  std::optional<checkpoint_batching> batching;
  /// Print the usage text and exit.
  bool help = false;
};

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
  options o;
  o.dsn = "fallback_application_name=replicant-jsonl-sink";
  std::optional<std::uint32_t> every;
  std::optional<std::uint32_t> delay_ms;
  std::optional<std::filesystem::path> checkpoint_file;
  argument_reader reader{args};
  while (reader.next()) {
    const std::string_view name = reader.name();
    const auto flag = [&](bool& target) {
      target = true;
      return !reader.has_inline_value();
    };
    const auto number = [&](std::uint32_t low, std::uint32_t high) -> std::optional<std::uint32_t> {
      const auto v = reader.take_value();
      return v ? parse_unsigned(*v, low, high) : std::nullopt;
    };
    if (const auto read = read_slot_option(reader, o); read.matched) {
      if (read.refused) return *read.refused;
    } else if (name == "-h" || name == "--help") {
      if (!flag(o.help)) return refusal{"--help takes no value"};
    } else if (name == "--go-forward-only") {
      if (!flag(o.go_forward_only)) return refusal{"--go-forward-only takes no value"};
    } else if (name == "--output") {
      const auto v = reader.take_value();
      if (!v || v->empty()) return refusal{"--output needs a path"};
      o.output = std::filesystem::path{std::string{*v}};
    } else if (name == "--checkpoint-file") {
      const auto v = reader.take_value();
      if (!v || v->empty()) return refusal{"--checkpoint-file needs a path"};
      checkpoint_file = std::filesystem::path{std::string{*v}};
    } else if (name == "--checkpoint-every") {
      every = number(1, 100000);
      if (!every) return refusal{"--checkpoint-every is 1 to 100000 transactions"};
    } else if (name == "--checkpoint-delay-ms") {
      delay_ms = number(1, 60000);
      if (!delay_ms) return refusal{"--checkpoint-delay-ms is 1 to 60000 milliseconds"};
    } else {
      return refusal{"unknown option " + printable_option_name(reader.argument()) + " (see --help)"};
    }
  }
  if (o.help) return o;
  if (auto missing = missing_slot_option(o)) return *missing;
  if (o.output.empty()) return refusal{"--output is required (see --help)"};
  if (o.create_slot && !o.go_forward_only) {
    return refusal{"--create-slot needs --go-forward-only: a slot created now never shows earlier changes"};
  }
  if (delay_ms && !every) return refusal{"--checkpoint-delay-ms applies only with --checkpoint-every"};
  if (every) {
    o.batching = checkpoint_batching{.max_transactions = *every,
                                     .max_delay = std::chrono::milliseconds{delay_ms.value_or(1000)}};
  }
  o.checkpoint_file = checkpoint_file.value_or(std::filesystem::path{o.output.string() + ".checkpoint"});
  if (o.checkpoint_file == o.output) return refusal{"--checkpoint-file must differ from --output"};
  return o;
}

/**
 * The replication pipeline's options for @p o. Everything not on the command line keeps the
 * pipeline's defaults: a 64 MiB memory budget with back-pressure on the server, reconnects with
 * backoff, 5 refused connect cycles before halting `command_error_limit`.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto pipeline_options_for(const options& o) -> pipeline_options {
  pipeline_options p = pipeline_options_for_slot(o);
  if (o.go_forward_only) p.start = start::go_forward{};
  return p;
}

}  // namespace replicant::examples::jsonl

#endif  // REPLICANT_EXAMPLES_JSONL_SINK_OPTIONS_HPP
