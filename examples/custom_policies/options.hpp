// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_CUSTOM_POLICIES_OPTIONS_HPP
#define REPLICANT_EXAMPLES_CUSTOM_POLICIES_OPTIONS_HPP

/// @file
/// replicant-custom-policies' command line: parsing and validation, before anything is opened or
/// connected. A refusal names the option, never the value given.

#include "../common/cli.hpp"
#include "../common/replication_options.hpp"

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

/**
 * What the command line asked for, validated.
 *
 * @par Thread safety
 * A value type.
 */
struct options : replicant::examples::replication_options {
  /// The file the lines are appended to.
  std::filesystem::path output;
  /// The checkpoint file.
  std::filesystem::path checkpoint_file;
  /// Where spilled transactions go.
  std::filesystem::path spill_dir;
  /// The WAL-bytes rule of the checkpoint policy.
  std::uint64_t checkpoint_every_bytes = std::uint64_t{16} << 20U;
  /// The checkpoint policy's timer.
  std::chrono::milliseconds checkpoint_delay{5000};
  /// The resident budget.
  std::size_t max_inflight_bytes = std::size_t{64} << 20U;
  /// Print the usage text and exit.
  bool help = false;
};

namespace detail {

using replicant::examples::command_line;

// The command line as text, before its values are checked: CLI11 reads into these.
struct arguments {
  command_line cli{
      "replicant-custom-policies",
      "Appends the committed changes of PostgreSQL publications to a file, one line per change and one\n"
      "commit line per transaction, through two policies written outside the library against its public\n"
      "concepts: the checkpoint is written to a file once the transactions delivered since the last write\n"
      "span --checkpoint-every-kib of WAL (or after --checkpoint-delay-ms, or at a stop), and a\n"
      "transaction larger than a quarter of --max-inflight-mib is spilled to a memory-mapped file in\n"
      "--spill-dir. A restart continues after the checkpoint: nothing is lost, and after a crash what\n"
      "followed the last checkpoint written is appended again (a reader skips commit LSNs it has seen).",
      "Ctrl-C (SIGINT) or SIGTERM stops cleanly. Exit status: 0 when stopped, 1 on a failure, 2 when\n"
      "refused to start."};
  replicant::examples::replication_arguments replication{
      cli,
      {.create_slot_help = "create the slot if it does not exist; needs --go-forward-only",
       .go_forward_only_help = "with no checkpoint yet, start at the slot's acknowledged position"}};
  std::string output;
  std::string checkpoint_file;
  std::string spill_dir;
  std::string every_kib = "16384";
  std::string delay_ms = "5000";
  std::string max_inflight_mib = "64";

  arguments() {
    cli.text("--output", output, "PATH", "", "the file to append to; created if missing").required();
    cli.text("--checkpoint-file", checkpoint_file, "PATH", "the output path + \".checkpoint\"",
             "where the checkpoint is kept");
    cli.text("--spill-dir", spill_dir, "DIR", "",
             "where spilled transactions go: an existing directory of yours that\nno one else may write to")
        .required();
    cli.text("--checkpoint-every-kib", every_kib, "N", "16384",
             "write the checkpoint once the transactions not yet covered span N\nKiB of WAL (1 to 4194304)");
    cli.text("--checkpoint-delay-ms", delay_ms, "MS", "5000", "... or once the oldest of them is MS old (1 to 600000)");
    cli.text("--max-inflight-mib", max_inflight_mib, "N", "64",
             "memory budget for transactions in progress (1 to 4096)");
  }
  arguments(const arguments&) = delete;
  auto operator=(const arguments&) -> arguments& = delete;
};

// The values @p a read, checked, into @p o: parse_options() after the syntax and `--help`.
// @throws std::bad_alloc only.
inline auto check(const arguments& a, options& o) -> std::optional<refusal> {
  using replicant::examples::parse_unsigned;
  o.dsn = "fallback_application_name=replicant-custom-policies";
  if (auto bad = a.replication.check(o)) return bad->to_refusal();
  if (a.output.empty()) return refusal{"--output needs a path"};
  o.output = std::filesystem::path{a.output};
  const bool has_checkpoint_file = a.cli.given("--checkpoint-file");
  if (has_checkpoint_file && a.checkpoint_file.empty()) return refusal{"--checkpoint-file needs a path"};
  if (a.spill_dir.empty()) return refusal{"--spill-dir needs a directory"};
  o.spill_dir = std::filesystem::path{a.spill_dir};
  const auto every = parse_unsigned(a.every_kib, 1, 4194304);
  if (!every) return refusal{"--checkpoint-every-kib is 1 to 4194304"};
  o.checkpoint_every_bytes = std::uint64_t{*every} << 10U;
  const auto delay = parse_unsigned(a.delay_ms, 1, 600000);
  if (!delay) return refusal{"--checkpoint-delay-ms is 1 to 600000 milliseconds"};
  o.checkpoint_delay = std::chrono::milliseconds{*delay};
  const auto mib = parse_unsigned(a.max_inflight_mib, 1, 4096);
  if (!mib) return refusal{"--max-inflight-mib is 1 to 4096"};
  o.max_inflight_bytes = std::size_t{*mib} << 20U;
  if (auto bad = replicant::examples::check_created_slot_goes_forward(o)) return bad;
  o.checkpoint_file = has_checkpoint_file ? std::filesystem::path{a.checkpoint_file}
                                          : std::filesystem::path{o.output.string() + ".checkpoint"};
  if (o.checkpoint_file == o.output) return refusal{"--checkpoint-file must differ from --output"};
  return std::nullopt;
}

}  // namespace detail

/// The `--help` text: every option with its default. @throws std::bad_alloc only.
[[nodiscard]] inline auto usage() -> std::string { return replicant::examples::usage_of<detail::arguments>(); }

/**
 * Parses and validates @p args (the arguments after the program name). Options take their value
 * as the next argument or after `=`.
 *
 * @return the options, or a @ref refusal naming the option at fault.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto parse_options(std::span<const char* const> args) -> std::variant<options, refusal> {
  return replicant::examples::parse_command_line<options, detail::arguments>(args, detail::check);
}

/**
 * The replication pipeline's options for @p o; everything else keeps the pipeline's defaults.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto pipeline_options_for(const options& o) -> replicant::pipeline_options {
  replicant::pipeline_options p = replicant::examples::pipeline_options_for_replication(o);
  p.max_inflight_bytes = o.max_inflight_bytes;
  return p;
}

}  // namespace custom_policies

#endif  // REPLICANT_EXAMPLES_CUSTOM_POLICIES_OPTIONS_HPP
