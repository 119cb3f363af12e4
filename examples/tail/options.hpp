// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_TAIL_OPTIONS_HPP
#define REPLICANT_EXAMPLES_TAIL_OPTIONS_HPP

/// @file
/// replicant-tail's command line: parsing and validation, before anything connects.

#include "../common/cli.hpp"
#include "failure.hpp"

#include <replicant/core/halt.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/pipeline/options.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace replicant::examples::tail {

/// The usage text printed by `--help`.
inline constexpr std::string_view usage_text =
    R"(Usage: replicant-tail --slot NAME --publication NAME [options]

Streams the committed changes of PostgreSQL publications as JSON lines, one object per change.

Options:
  --dsn CONNINFO           libpq connection string or URI (default: the PG* environment variables)
  --slot NAME              logical replication slot to stream from ([a-z0-9_], at most 63 bytes)
  --publication NAME       publication to stream (repeatable; at least one)
  --create-slot            create the slot (persistent, pgoutput) if it does not exist;
                           needs --go-forward-only (or --snapshot)
  --go-forward-only        with no checkpoint yet, start at the slot's acknowledged position (a
                           new slot: the current end of WAL); earlier changes are never shown
  --snapshot               with no checkpoint yet, create the slot and first print every row the
                           published tables hold at that moment ("op":"snapshot"), then stream
                           from exactly there; a progress line goes to stderr meanwhile
  --progress-interval SECS seconds between snapshot progress lines when stderr is not a terminal
                           (default: 5; on a terminal the line is updated in place)
  --checkpoint-file PATH   keep the position of the last written transaction in PATH: a restart
                           continues after it, skipping nothing
  --proto-version N        pgoutput protocol version (default: the highest the server supports)
  --messages               also print logical messages (pg_logical_emit_message)
  --status-interval SECS   seconds between status updates to the server (default: 10)
  -h, --help               print this help and exit

Once streaming, a lost connection or a restarted server is reconnected to with backoff. Ctrl-C
(SIGINT) or SIGTERM stops cleanly. Exit status: 0 when stopped or the output was closed, 1 on a
failure, 2 when refused to start. See docs/tail.md.
)";

/**
 * What the command line asked for, validated.
 *
 * @par Thread safety
 * A value type.
 */
struct options {
  /// The libpq connection string; empty means libpq's defaults (PGHOST, PGPORT, PGUSER, ...).
  std::string dsn;
  /// The replication slot (validated with identifier::validate_slot_name).
  std::string slot;
  /// The publications, without duplicates (each validated with identifier::validate).
  std::vector<std::string> publications;
  /// Create the slot when it does not exist (only together with `go_forward_only`).
  bool create_slot = false;
  /// With no checkpoint, start at the slot's acknowledged position (a new slot: now).
  bool go_forward_only = false;
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
  /// Time between periodic status updates.
  std::chrono::seconds status_interval{10};
  /// Print the usage text and exit.
  bool help = false;
};

namespace detail {

inline auto bad_value(std::string_view step, std::string_view hint) -> failure {
  return failure{.step = step, .code = make_error_code(errc::invalid_options), .hint = hint};
}

}  // namespace detail

/// The result of parse_options(): the options, or why the command line was refused. The refusal
/// is value-free: it names the option, never the value given.
using parsed_options = outcome<options>;

/**
 * Parses and validates @p args (the arguments after the program name). Options take their value
 * as the next argument or after `=` (`--slot s` or `--slot=s`).
 *
 * Checks, in order: every option is known and has its value; `--slot` and at least one
 * `--publication` are given unless `--help` is; the slot name has the shape PostgreSQL accepts
 * and publication names are plain identifiers; `--proto-version` is 1 to 4; `--status-interval`
 * and `--progress-interval` are 1 to 3600 seconds; `--snapshot` and `--go-forward-only` are not
 * both given; `--create-slot` comes with `--go-forward-only` or `--snapshot`. Whether the slot
 * exists, and whether there is a checkpoint, are found out later by the replication pipeline.
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
  options o;
  bool have_slot = false;
  argument_reader reader{args};
  while (reader.next()) {
    const std::string_view name = reader.name();
    const auto flag = [&](bool& target) -> bool {
      if (reader.has_inline_value()) return false;
      target = true;
      return true;
    };
    // The value of an option: after '=' or the next argument.
    const auto take = [&] { return reader.take_value(); };

    if (name == "-h" || name == "--help") {
      if (!flag(o.help)) return detail::bad_value("parsing --help", "--help takes no value");
    } else if (name == "--create-slot") {
      if (!flag(o.create_slot)) return detail::bad_value("parsing --create-slot", "--create-slot takes no value");
    } else if (name == "--go-forward-only") {
      if (!flag(o.go_forward_only)) {
        return detail::bad_value("parsing --go-forward-only", "--go-forward-only takes no value");
      }
    } else if (name == "--snapshot") {
      if (!flag(o.snapshot)) return detail::bad_value("parsing --snapshot", "--snapshot takes no value");
    } else if (name == "--messages") {
      if (!flag(o.messages)) return detail::bad_value("parsing --messages", "--messages takes no value");
    } else if (name == "--dsn") {
      const auto v = take();
      if (!v) return detail::bad_value("parsing --dsn", "--dsn needs a connection string");
      o.dsn = std::string{*v};
    } else if (name == "--slot") {
      const auto v = take();
      if (!v) return detail::bad_value("parsing --slot", "--slot needs a name");
      if (auto ok = identifier::validate_slot_name(*v); !ok) {
        return failure{.step = "checking --slot",
                       .code = make_error_code(errc::halted),
                       .reason = halt_reason::invalid_identifier,
                       .hint = "a slot name is 1 to 63 characters of a-z, 0-9 and _",
                       .cause = ok.error()};
      }
      o.slot = std::string{*v};
      have_slot = true;
    } else if (name == "--publication") {
      const auto v = take();
      if (!v) return detail::bad_value("parsing --publication", "--publication needs a name");
      if (auto ok = identifier::validate(*v); !ok) {
        return failure{.step = "checking --publication",
                       .code = make_error_code(errc::halted),
                       .reason = halt_reason::invalid_identifier,
                       .hint =
                           "a publication name is a plain identifier: a letter or _, then letters, digits, _ "
                           "or $, at most 63 bytes",
                       .cause = ok.error()};
      }
      if (std::find(o.publications.begin(), o.publications.end(), *v) == o.publications.end()) {
        o.publications.emplace_back(*v);
      }
    } else if (name == "--checkpoint-file") {
      const auto v = take();
      if (!v || v->empty()) return detail::bad_value("parsing --checkpoint-file", "--checkpoint-file needs a path");
      o.checkpoint_file = std::filesystem::path{std::string{*v}};
    } else if (name == "--proto-version") {
      const auto v = take();
      const auto n = v ? parse_unsigned(*v, 1, 4) : std::nullopt;
      if (!n) return detail::bad_value("parsing --proto-version", "--proto-version is 1, 2, 3 or 4");
      o.proto_version = *n;
    } else if (name == "--status-interval") {
      const auto v = take();
      const auto n = v ? parse_unsigned(*v, 1, 3600) : std::nullopt;
      if (!n) return detail::bad_value("parsing --status-interval", "--status-interval is 1 to 3600 seconds");
      o.status_interval = std::chrono::seconds{*n};
    } else if (name == "--progress-interval") {
      const auto v = take();
      const auto n = v ? parse_unsigned(*v, 1, 3600) : std::nullopt;
      if (!n) return detail::bad_value("parsing --progress-interval", "--progress-interval is 1 to 3600 seconds");
      o.progress_interval = std::chrono::seconds{*n};
    } else {
      return failure{.step = "parsing the option",
                     .code = make_error_code(errc::invalid_options),
                     .hint = "unknown option (see --help)",
                     .option = printable_option_name(reader.argument())};
    }
  }
  if (o.help) return o;
  if (!have_slot) return detail::bad_value("parsing the command line", "--slot is required (see --help)");
  if (o.publications.empty()) {
    return detail::bad_value("parsing the command line", "at least one --publication is required (see --help)");
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
 * `--create-slot`, `--go-forward-only`, `--snapshot` and `--status-interval`. Everything else keeps
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
  pipeline_options p;
  p.conninfo = o.dsn.empty() ? std::string{default_conninfo} : o.dsn;
  p.slot = o.slot;
  p.create_slot = o.snapshot ? !has_checkpoint : o.create_slot;
  // parse_options() refuses --snapshot with --go-forward-only: two start modes at once.
  if (o.snapshot) {
    p.start = start::point_in_time_snapshot{.batch_rows = snapshot_batch_rows};
  } else if (o.go_forward_only) {
    p.start = start::go_forward{};
  }
  p.status_interval = o.status_interval;
  return p;
}

}  // namespace replicant::examples::tail

#endif  // REPLICANT_EXAMPLES_TAIL_OPTIONS_HPP
