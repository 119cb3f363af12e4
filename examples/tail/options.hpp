// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_TAIL_OPTIONS_HPP
#define REPLICANT_EXAMPLES_TAIL_OPTIONS_HPP

/// @file
/// replicant-tail's command line: parsing and validation, before anything connects.

#include "../common/cli.hpp"
#include "../common/replication_options.hpp"
#include "failure.hpp"

#include <replicant/core/halt.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/pipeline/options.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace replicant::examples::tail {

/**
 * What the command line asked for, validated.
 *
 * @par Thread safety
 * A value type.
 */
struct options : replication_options {
  /// With no checkpoint, create the slot and print the published tables' rows first (the
  /// replication pipeline's point-in-time snapshot), then stream from the snapshot's point.
  bool snapshot = false;
  /// Time between two snapshot progress lines when stderr is not a terminal.
  std::chrono::seconds progress_interval{5};
  /// Where the checkpoint is kept, if anywhere.
  std::optional<std::filesystem::path> checkpoint_file;
  /// The pgoutput protocol version asked for; none: the highest the server supports.
  std::optional<std::uint32_t> proto_version;
  /// Print logical messages too.
  bool messages = false;
  /// Stop once every transaction committed at or before it is written and acknowledged
  /// (`pipeline_options::end_lsn`).
  std::optional<lsn> end_lsn;
  /// Print the usage text and exit.
  bool help = false;
};

/// The result of parse_options(): the options, or why the command line was refused. The refusal
/// is value-free: it names the option, never the value given.
using parsed_options = outcome<options>;

namespace detail {

// The command line as text, before its values are checked: CLI11 reads into these.
struct arguments {
  command_line cli{"replicant-tail",
                   "Streams the committed changes of PostgreSQL publications as JSON lines, one object per change.",
                   "Once streaming, a lost connection or a restarted server is reconnected to with backoff. Ctrl-C\n"
                   "(SIGINT) or SIGTERM stops cleanly. Exit status: 0 when stopped, at --end-lsn, or when the output\n"
                   "was closed; 1 on a failure; 2 when refused to start. See docs/tail.md."};
  replication_arguments replication{
      cli,
      {.create_slot_help =
           "create the slot (persistent, pgoutput) if it does not exist;\nneeds --go-forward-only (or --snapshot)",
       .go_forward_only_help = "with no checkpoint yet, start at the slot's acknowledged position\n(a new slot: the "
                               "current end of WAL); earlier changes are never shown"}};
  bool snapshot = false;
  std::string progress_interval = "5";
  std::string checkpoint_file;
  std::string proto_version;
  bool messages = false;
  std::string end_lsn;

  arguments() {
    cli.flag("--snapshot", snapshot,
             "with no checkpoint yet, create the slot and first print every row\nthe published tables hold at that "
             "moment (\"op\":\"snapshot\"), then stream\nfrom exactly there; a progress line goes to stderr meanwhile");
    cli.text("--progress-interval", progress_interval, "SECS", "5",
             "seconds between snapshot progress lines when stderr is not a\nterminal (on a terminal the line is "
             "updated in place)");
    cli.text("--checkpoint-file", checkpoint_file, "PATH", "none: kept in memory",
             "keep the position of the last written transaction in PATH: a\nrestart continues after it, skipping "
             "nothing");
    cli.text("--proto-version", proto_version, "N", "the highest the server supports", "pgoutput protocol version");
    cli.flag("--messages", messages, "also print logical messages (pg_logical_emit_message)");
    cli.text("--end-lsn", end_lsn, "LSN", "none: stream until stopped",
             "print every transaction committed at or before LSN (e.g. 0/16B3748),\nthen stop with exit status 0 once "
             "that position is acknowledged:\nwhen a later transaction arrives (not printed) or the server's\nWAL "
             "passes it idle (as pg_recvlogical --endpos)");
  }
  arguments(const arguments&) = delete;
  auto operator=(const arguments&) -> arguments& = delete;
};

inline auto bad_value(std::string_view step, std::string_view hint) -> failure {
  return failure{.step = step, .code = make_error_code(errc::invalid_options), .hint = hint};
}

// An option the shared command line refused, said as replicant-tail says it: a malformed name as
// the pipeline would refuse it (halt `invalid_identifier`, with the rule it broke), anything else
// as invalid options.
inline auto refused(std::string_view step, const option_error& bad) -> failure {
  failure f{.step = step, .code = make_error_code(errc::invalid_options), .hint = bad.problem, .option = bad.option};
  if (bad.cause) {
    f.code = make_error_code(errc::halted);
    f.reason = halt_reason::invalid_identifier;
    f.cause = bad.cause;
  }
  return f;
}

}  // namespace detail

/// The `--help` text: every option with its default. @throws std::bad_alloc only.
[[nodiscard]] inline auto usage() -> std::string {
  const detail::arguments a;
  return a.cli.help();
}

/**
 * Parses and validates @p args (the arguments after the program name). Options take their value
 * as the next argument or after `=` (`--slot s` or `--slot=s`).
 *
 * Checks, in order: every option is known and has its value, and a flag has none; the replication
 * options, as every example checks them (replication_arguments): `--slot` and at least one
 * `--publication` are given unless `--help` is, the slot name has the shape PostgreSQL accepts and
 * publication names are plain identifiers, `--status-interval` is 1 to 3600 seconds; then
 * `--checkpoint-file` is a path; `--proto-version` is 1 to 4; `--progress-interval` is 1 to 3600
 * seconds; `--end-lsn` is an LSN; `--snapshot` and `--go-forward-only` are not both given;
 * `--create-slot` comes with `--go-forward-only` or `--snapshot`. Whether the slot exists, and
 * whether there is a checkpoint, are found out later by the replication pipeline.
 *
 * Why `--create-slot` needs `--go-forward-only` even when a checkpoint file exists: a slot that has
 * to be created starts at the current end of WAL, so whatever was committed since the checkpoint
 * (on the slot that is gone) is never shown. The pipeline's own guard only asks for a start mode
 * when there is no checkpoint; replicant-tail also asks for it whenever it may create the slot, so
 * a gap is never opened without being accepted on the command line. `--snapshot` creates the slot
 * only when there is no checkpoint (see pipeline_options_for()), and then shows everything before
 * it as snapshot rows: no gap to accept.
 *
 * @return the options, or a @ref failure (code `errc::invalid_options`, also for `--snapshot`
 * with `--go-forward-only`; halt `invalid_identifier` with an @ref replicant::identifier_error
 * cause, or halt `go_forward_required`) whose text never contains an argument's value.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto parse_options(std::span<const char* const> args) -> parsed_options {
  detail::arguments a;
  if (auto bad = a.cli.parse(args)) return detail::refused("parsing the command line", *bad);
  options o;
  if (a.cli.help_requested()) {
    o.help = true;
    return o;
  }
  if (auto bad = a.replication.check(o)) return detail::refused("checking", *bad);
  o.snapshot = a.snapshot;
  o.messages = a.messages;
  if (a.cli.given("--checkpoint-file")) {
    if (a.checkpoint_file.empty()) {
      return detail::bad_value("parsing --checkpoint-file", "--checkpoint-file needs a path");
    }
    o.checkpoint_file = std::filesystem::path{a.checkpoint_file};
  }
  if (a.cli.given("--proto-version")) {
    const auto n = parse_unsigned(a.proto_version, 1, 4);
    if (!n) return detail::bad_value("parsing --proto-version", "--proto-version is 1, 2, 3 or 4");
    o.proto_version = *n;
  }
  const auto progress = parse_unsigned(a.progress_interval, 1, 3600);
  if (!progress) return detail::bad_value("parsing --progress-interval", "--progress-interval is 1 to 3600 seconds");
  o.progress_interval = std::chrono::seconds{*progress};
  if (a.cli.given("--end-lsn")) {
    const auto end = parse_lsn(a.end_lsn);
    if (!end) return detail::bad_value("parsing --end-lsn", "--end-lsn is a WAL position such as 0/16B3748");
    o.end_lsn = *end;
  }
  if (o.snapshot && o.go_forward_only) {
    return failure{.step = "checking --snapshot",
                   .code = make_error_code(errc::invalid_options),
                   .hint =
                       "--snapshot (print the existing rows first) and --go-forward-only (show only what commits "
                       "from now on) are two ways to start: pass one of them"};
  }
  if (o.create_slot && !o.go_forward_only && !o.snapshot) {
    return failure{.step = "checking --create-slot",
                   .code = make_error_code(errc::halted),
                   .reason = halt_reason::go_forward_required,
                   .hint =
                       "a slot it creates starts now and never shows earlier changes: pass --go-forward-only "
                       "to accept that, or --snapshot to print the existing rows first"};
  }
  return o;
}

/// The connection string used when `--dsn` is not given: libpq then takes everything from the PG*
/// variables, and the session is named after the program unless `PGAPPNAME` names it.
inline constexpr std::string_view default_conninfo = "fallback_application_name=replicant-tail";

/// Rows per snapshot batch handed to the sink: one write(2) of their lines, and one progress update.
inline constexpr std::size_t snapshot_batch_rows = 1000;

/**
 * What pgoutput is asked for: `--publication`, `--proto-version` (0: the highest the server has)
 * and `--messages`. @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto pgoutput_options_for(const options& o) -> pgoutput_options {
  return pgoutput_options{
      .publications = o.publications, .protocol_version = o.proto_version.value_or(0), .messages = o.messages};
}

/**
 * The replication pipeline's options for @p o: `--dsn` (or @ref default_conninfo), `--slot`,
 * `--create-slot`, `--go-forward-only`, `--snapshot`, `--status-interval` and `--end-lsn`. Everything else keeps
 * the pipeline's defaults: a 64 MiB memory budget with back-pressure on the server, reconnects with
 * backoff from 0.1 s up to 10 s, and 5 refused connect cycles before halting
 * `command_error_limit`. What pgoutput is asked for is @ref pgoutput_options_for.
 *
 * `--snapshot` is the point-in-time snapshot mode, in batches of @ref snapshot_batch_rows rows.
 * It creates the slot when @p has_checkpoint is false, whether `--create-slot` was given or not
 * (a snapshot is taken with the slot's creation, so without one there is nothing to create), and
 * never when a checkpoint exists: then the snapshot was taken by an earlier run, and a slot made
 * now would start after a gap. A missing slot then stops the run with `slot_missing`.
 *
 * @param has_checkpoint whether the checkpoint store already holds a position for the slot (a
 * checkpoint file written by an earlier run).
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto pipeline_options_for(const options& o, bool has_checkpoint = false) -> pipeline_options {
  pipeline_options p = pipeline_options_for_replication(o);
  if (o.dsn.empty()) p.conninfo = std::string{default_conninfo};
  p.create_slot = o.snapshot ? !has_checkpoint : o.create_slot;
  // parse_options() refuses --snapshot with --go-forward-only: two start modes at once.
  if (o.snapshot) p.start = start::point_in_time_snapshot{.batch_rows = snapshot_batch_rows};
  p.end_lsn = o.end_lsn;
  return p;
}

}  // namespace replicant::examples::tail

#endif  // REPLICANT_EXAMPLES_TAIL_OPTIONS_HPP
