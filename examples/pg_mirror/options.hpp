// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_PG_MIRROR_OPTIONS_HPP
#define REPLICANT_EXAMPLES_PG_MIRROR_OPTIONS_HPP

/// @file
/// replicant-pg-mirror's command line, parsed and checked before anything connects. Refusals name
/// the option, never the value given (a connection string can hold a password).

#include "../common/cli.hpp"

#include <replicant/identifier.hpp>

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace replicant::examples::pg_mirror {

// The exit statuses are shared with the other examples; `pg_mirror::exit_ok` etc. keep working.
using examples::exit_failure;
using examples::exit_ok;
using examples::exit_refused;

/// The usage text printed by `--help`.
inline constexpr std::string_view usage_text =
    R"(Usage: replicant-pg-mirror --source CONNINFO --target CONNINFO --slot NAME --publication NAME [options]

Mirrors the published tables of a source PostgreSQL database into a target database, applying each
source transaction exactly once, in one target transaction together with its checkpoint.

Options:
  --source CONNINFO     libpq connection string of the source (the publisher)
  --target CONNINFO     libpq connection string of the target; its tables must exist already
  --slot NAME           logical replication slot ([a-z0-9_], at most 63 bytes); created if absent
  --publication NAME    publication to mirror (repeatable; at least one)
  --go-forward-only     accept that a new slot mirrors only what commits from now on (required
                        until the target holds a checkpoint for the slot)
  -h, --help            print this help and exit

The target gets two bookkeeping tables: replicant_mirror_checkpoint (one row per slot) and
replicant_mirror_applied (the commit LSN of every applied transaction). Ctrl-C or SIGTERM stops
cleanly; SIGKILL at any moment is safe too. Exit status: 0 when stopped, 1 on a failure, 2 when
refused to start. See docs/pg_mirror.md.
)";

/**
 * What the command line asked for.
 *
 * @par Thread safety
 * A value type.
 */
struct options {
  /// Connection string of the source.
  std::string source;
  /// Connection string of the target.
  std::string target;
  /// The slot (shape checked).
  std::string slot;
  /// The publications, without duplicates (each shape checked).
  std::vector<std::string> publications;
  /// Accept that a new slot starts now.
  bool go_forward_only = false;
  /// Print the usage text and exit.
  bool help = false;
};

/// Why the command line was refused: fixed text naming the option at most.
struct refusal {
  /// What is wrong, e.g. `"--slot is not a valid slot name (1 to 63 of a-z, 0-9, _)"`.
  std::string_view reason;
};

/**
 * Parses @p args (the arguments after the program name). An option's value is the next argument
 * or follows `=` (`--slot s`, `--slot=s`).
 *
 * @return the options, or a @ref refusal that never repeats an argument.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto parse_options(std::span<const char* const> args) -> std::variant<options, refusal> {
  options o;
  argument_reader reader{args};
  while (reader.next()) {
    const std::string_view name = reader.name();
    const bool inline_value = reader.has_inline_value();
    const auto take = [&] { return reader.take_value(); };

    if ((name == "-h" || name == "--help") && !inline_value) {
      o.help = true;
    } else if (name == "--go-forward-only" && !inline_value) {
      o.go_forward_only = true;
    } else if (name == "--source" || name == "--target") {
      const auto v = take();
      if (!v || v->empty())
        return refusal{name == "--source" ? "--source needs a connection string"
                                          : "--target needs a connection string"};
      (name == "--source" ? o.source : o.target) = std::string{*v};
    } else if (name == "--slot") {
      const auto v = take();
      if (!v || !identifier::validate_slot_name(*v)) {
        return refusal{"--slot needs a valid slot name (1 to 63 characters of a-z, 0-9 and _)"};
      }
      o.slot = std::string{*v};
    } else if (name == "--publication") {
      const auto v = take();
      if (!v || !identifier::validate(*v)) {
        return refusal{"--publication needs a plain identifier (a letter or _, then letters, digits, _ or $)"};
      }
      if (std::find(o.publications.begin(), o.publications.end(), *v) == o.publications.end()) {
        o.publications.emplace_back(*v);
      }
    } else {
      return refusal{"unknown option or misplaced value (see --help)"};
    }
  }
  if (o.help) return o;
  if (o.source.empty() || o.target.empty()) return refusal{"--source and --target are required (see --help)"};
  if (o.slot.empty()) return refusal{"--slot is required (see --help)"};
  if (o.publications.empty()) return refusal{"at least one --publication is required (see --help)"};
  return o;
}

}  // namespace replicant::examples::pg_mirror

#endif  // REPLICANT_EXAMPLES_PG_MIRROR_OPTIONS_HPP
