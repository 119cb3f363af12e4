// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_CUSTOM_POLICIES_OPTIONS_HPP
#define REPLICANT_EXAMPLES_CUSTOM_POLICIES_OPTIONS_HPP

/// @file
/// replicant-custom-policies' command line: parsing and validation, before anything is opened or
/// connected. A refusal names the option, never the value given.

#include "../common/cli.hpp"

#include <replicant/pipeline/options.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace custom_policies {

/// Why the command line was refused (the example programs share the type).
using replicant::examples::refusal;

/// The usage text printed by `--help`.
inline constexpr std::string_view usage_text =
    R"(Usage: replicant-custom-policies --slot NAME --publication NAME --output PATH --spill-dir DIR [options]

Appends the committed changes of PostgreSQL publications to a file, one line per change and one
commit line per transaction, through two policies written outside the library against its public
concepts: the checkpoint is written to a file once the transactions delivered since the last write
span --checkpoint-every-kib of WAL (or after --checkpoint-delay-ms, or at a stop), and a
transaction larger than a quarter of --max-inflight-mib is spilled to a memory-mapped file in
--spill-dir. A restart continues after the checkpoint: nothing is lost, and after a crash what
followed the last checkpoint written is appended again (a reader skips commit LSNs it has seen).

Options:
  --dsn CONNINFO             libpq connection string or URI (default: the PG* environment variables)
  --slot NAME                logical replication slot ([a-z0-9_], at most 63 bytes)
  --publication NAME         publication to stream (repeatable; at least one)
  --output PATH              the file to append to; created if missing
  --checkpoint-file PATH     where the checkpoint is kept (default: the output path + ".checkpoint")
  --spill-dir DIR            where spilled transactions go: an existing directory of yours that no
                             one else may write to
  --create-slot              create the slot if it does not exist; needs --go-forward-only
  --go-forward-only          with no checkpoint yet, start at the slot's acknowledged position
  --checkpoint-every-kib N   write the checkpoint once the transactions not yet covered span N KiB
                             of WAL (1 to 4194304; default 16384, i.e. 16 MiB)
  --checkpoint-delay-ms MS   ... or once the oldest of them is MS old (1 to 600000; default 5000)
  --max-inflight-mib N       memory budget for transactions in progress (1 to 4096; default 64)
  --status-interval SECS     seconds between status updates to the server (default: 10)
  -h, --help                 print this help and exit

Ctrl-C (SIGINT) or SIGTERM stops cleanly. Exit status: 0 when stopped, 1 on a failure, 2 when
refused to start.
)";

/**
 * What the command line asked for, validated.
 *
 * @par Thread safety
 * A value type.
 */
struct options : replicant::examples::slot_options {
  /// The file the lines are appended to.
  std::filesystem::path output;
  /// The checkpoint file.
  std::filesystem::path checkpoint_file;
  /// Where spilled transactions go.
  std::filesystem::path spill_dir;
  /// With no checkpoint, start at the slot's acknowledged position.
  bool go_forward_only = false;
  /// The WAL-bytes rule of the checkpoint policy.
  std::uint64_t checkpoint_every_bytes = std::uint64_t{16} << 20U;
  /// The checkpoint policy's timer.
  std::chrono::milliseconds checkpoint_delay{5000};
  /// The resident budget.
  std::size_t max_inflight_bytes = std::size_t{64} << 20U;
  /// Print the usage text and exit.
  bool help = false;
};

/**
 * Parses and validates @p args (the arguments after the program name). Options take their value
 * as the next argument or after `=`.
 *
 * @return the options, or a @ref refusal naming the option at fault.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto parse_options(std::span<const char* const> args) -> std::variant<options, refusal> {
  using replicant::examples::parse_unsigned;
  options o;
  o.dsn = "fallback_application_name=replicant-custom-policies";
  std::optional<std::filesystem::path> checkpoint_file;
  replicant::examples::argument_reader reader{args};
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
    const auto path = [&]() -> std::optional<std::filesystem::path> {
      const auto v = reader.take_value();
      if (!v || v->empty()) return std::nullopt;
      return std::filesystem::path{std::string{*v}};
    };
    if (const auto read = replicant::examples::read_slot_option(reader, o); read.matched) {
      if (read.refused) return *read.refused;
    } else if (name == "-h" || name == "--help") {
      if (!flag(o.help)) return refusal{"--help takes no value"};
    } else if (name == "--go-forward-only") {
      if (!flag(o.go_forward_only)) return refusal{"--go-forward-only takes no value"};
    } else if (name == "--output") {
      const auto p = path();
      if (!p) return refusal{"--output needs a path"};
      o.output = *p;
    } else if (name == "--checkpoint-file") {
      checkpoint_file = path();
      if (!checkpoint_file) return refusal{"--checkpoint-file needs a path"};
    } else if (name == "--spill-dir") {
      const auto p = path();
      if (!p) return refusal{"--spill-dir needs a directory"};
      o.spill_dir = *p;
    } else if (name == "--checkpoint-every-kib") {
      const auto n = number(1, 4194304);
      if (!n) return refusal{"--checkpoint-every-kib is 1 to 4194304"};
      o.checkpoint_every_bytes = std::uint64_t{*n} << 10U;
    } else if (name == "--checkpoint-delay-ms") {
      const auto n = number(1, 600000);
      if (!n) return refusal{"--checkpoint-delay-ms is 1 to 600000 milliseconds"};
      o.checkpoint_delay = std::chrono::milliseconds{*n};
    } else if (name == "--max-inflight-mib") {
      const auto n = number(1, 4096);
      if (!n) return refusal{"--max-inflight-mib is 1 to 4096"};
      o.max_inflight_bytes = std::size_t{*n} << 20U;
    } else {
      return refusal{"unknown option " + replicant::examples::printable_option_name(reader.argument()) +
                     " (see --help)"};
    }
  }
  if (o.help) return o;
  if (auto missing = replicant::examples::missing_slot_option(o)) return *missing;
  if (o.output.empty()) return refusal{"--output is required (see --help)"};
  if (o.spill_dir.empty()) return refusal{"--spill-dir is required (see --help)"};
  if (o.create_slot && !o.go_forward_only) {
    return refusal{"--create-slot needs --go-forward-only: a slot created now never shows earlier changes"};
  }
  o.checkpoint_file = checkpoint_file.value_or(std::filesystem::path{o.output.string() + ".checkpoint"});
  if (o.checkpoint_file == o.output) return refusal{"--checkpoint-file must differ from --output"};
  return o;
}

/**
 * The replication pipeline's options for @p o; everything else keeps the pipeline's defaults.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto pipeline_options_for(const options& o) -> replicant::pipeline_options {
  replicant::pipeline_options p = replicant::examples::pipeline_options_for_slot(o);
  if (o.go_forward_only) p.start = replicant::start::go_forward{};
  p.max_inflight_bytes = o.max_inflight_bytes;
  return p;
}

}  // namespace custom_policies

#endif  // REPLICANT_EXAMPLES_CUSTOM_POLICIES_OPTIONS_HPP
