// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_COMMON_REPLICATION_OPTIONS_HPP
#define REPLICANT_EXAMPLES_COMMON_REPLICATION_OPTIONS_HPP

/// @file
/// The replication options of the example programs, declared and checked in one place: where to
/// connect, which slot and publications, whether to create the slot, where to start without a
/// checkpoint, how often to report to the server; and what they ask of pgoutput and the pipeline.
/// Every program that follows one slot reads them so, and so refuses the same mistakes in the same
/// words.

#include "cli.hpp"

#include <replicant/core/identifier.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/pipeline/options.hpp>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace replicant::examples {

/**
 * What a program that follows one slot was asked for: where to connect, which slot and
 * publications, whether to create the slot, where to start without a checkpoint, and how often to
 * report to the server. Programs derive their own options from it (or hold it);
 * @ref replication_arguments declares and checks it.
 *
 * @par Thread safety
 * A value type.
 */
struct replication_options {
  /// The libpq connection string; empty lets libpq read the PG* variables.
  std::string dsn;
  /// The replication slot (validated with identifier::validate_slot_name).
  std::string slot;
  /// The publications, without duplicates (each validated with identifier::validate).
  std::vector<std::string> publications;
  /// Create the slot when it does not exist.
  bool create_slot = false;
  /// With no checkpoint, start at the slot's acknowledged position (a slot created now: the end of
  /// the WAL).
  bool go_forward_only = false;
  /// Time between periodic status updates.
  std::chrono::seconds status_interval{10};
};

/**
 * How a program's replication options appear on its command line: what its `--create-slot` and
 * `--go-forward-only` need, and where its checkpoint lives, differ between programs, and so does
 * their help; a program may also go without some of them.
 */
struct replication_form {
  /// `--create-slot`'s help. Empty: the program has no `--create-slot`, and creates a missing slot
  /// (the pipeline's default).
  std::string create_slot_help{};
  /// `--go-forward-only`'s help. Empty: the program has no `--go-forward-only`.
  std::string go_forward_only_help{};
  /// Whether the program has `--dsn`; one that joins two databases names its source itself.
  bool dsn = true;
  /// Whether the program has `--status-interval`; without it the interval is 10 seconds.
  bool status_interval = true;
  /// Whether CLI11 requires `--slot` and `--publication` (and `--help` says so); a program that
  /// needs them only in some modes checks them only then.
  bool required = true;
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
 * The replication options on a @ref command_line: `--dsn`, `--slot`, `--publication`
 * (repeatable), `--create-slot`, `--go-forward-only` and `--status-interval` (1 to 3600 seconds,
 * default 10), as the program's @ref replication_form has them, read as text by parse() and
 * checked by check().
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe.
 */
class replication_arguments {
 public:
  /// Declares the options @p form names on @p cli, which must outlive this, in the order above.
  /// @throws std::bad_alloc only.
  replication_arguments(command_line& cli, const replication_form& form)
      : creates_missing_slot_(form.create_slot_help.empty()) {
    if (form.dsn) {
      cli.text("--dsn", dsn_, "CONNINFO", "the PG* environment variables", "libpq connection string or URI");
    }
    const std::string slot_help = "logical replication slot ([a-z0-9_], at most 63 bytes)";
    auto slot = cli.text("--slot", slot_, "NAME", form.required ? "" : "none",
                         creates_missing_slot_ ? slot_help + ";\ncreated if absent" : slot_help);
    auto publication = cli.texts("--publication", publications_, "NAME", form.required ? "" : "none",
                                 "publication to stream (repeatable; at least one)");
    if (form.required) {
      slot.required();
      publication.required();
    }
    if (!creates_missing_slot_) cli.flag("--create-slot", create_slot_, form.create_slot_help);
    if (!form.go_forward_only_help.empty()) cli.flag("--go-forward-only", go_forward_only_, form.go_forward_only_help);
    if (form.status_interval) {
      cli.text("--status-interval", status_interval_, "SECS", "10", "seconds between status updates to the server");
    }
  }

  // The command line reads into this object's members.
  replication_arguments(const replication_arguments&) = delete;
  auto operator=(const replication_arguments&) -> replication_arguments& = delete;

  /**
   * Checks the values read and stores them in @p into (its `dsn` is kept when `--dsn` was not
   * given). @return what is wrong, or nothing; a malformed name carries the
   * @ref replicant::identifier_error it is. @throws std::bad_alloc only.
   */
  [[nodiscard]] auto check(replication_options& into) const -> std::optional<option_error> {
    if (auto bad = check_names()) return bad;
    const auto interval = parse_unsigned(status_interval_, 1, 3600);
    if (!interval) return option_error{.option = "--status-interval", .problem = "is 1 to 3600 seconds"};
    if (!dsn_.empty()) into.dsn = dsn_;
    into.slot = slot_;
    into.publications = without_repeats(publications_);
    into.create_slot = creates_missing_slot_ || create_slot_;
    into.go_forward_only = go_forward_only_;
    into.status_interval = std::chrono::seconds{*interval};
    return std::nullopt;
  }

 private:
  // Whether the slot and the publications are given, and have the shape PostgreSQL accepts.
  [[nodiscard]] auto check_names() const -> std::optional<option_error> {
    if (slot_.empty()) return option_error{.option = "--slot", .problem = "is required (see --help)"};
    if (publications_.empty()) return option_error{.option = "--publication", .problem = "is required (see --help)"};
    if (auto ok = identifier::validate_slot_name(slot_); !ok) {
      return option_error{
          .option = "--slot", .problem = "is 1 to 63 characters of a-z, 0-9 and _", .cause = ok.error()};
    }
    for (const auto& p : publications_) {
      if (auto ok = identifier::validate(p); !ok) {
        return option_error{
            .option = "--publication",
            .problem = "is a plain identifier of at most 63 bytes: a letter or _, then letters, digits, _ or $",
            .cause = ok.error()};
      }
    }
    return std::nullopt;
  }

  bool creates_missing_slot_;
  std::string dsn_;
  std::string slot_;
  std::vector<std::string> publications_;
  bool create_slot_ = false;
  bool go_forward_only_ = false;
  std::string status_interval_ = "10";
};

/**
 * `--go-forward-only` with `--create-slot`, for a program that reads a slot from its start: a slot
 * created now starts at the current end of WAL, so the gap must be accepted on the command line.
 * @return the refusal, or nothing. @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto check_created_slot_goes_forward(const replication_options& o) -> std::optional<refusal> {
  if (o.create_slot && !o.go_forward_only) {
    return refusal{"--create-slot needs --go-forward-only: a slot created now never shows earlier changes"};
  }
  return std::nullopt;
}

/**
 * What pgoutput is asked for: the publications of @p o; everything else keeps pgoutput's defaults.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto pgoutput_options_for_replication(const replication_options& o) -> pgoutput_options {
  return pgoutput_options{.publications = o.publications};
}

/**
 * The replication pipeline's options for @p o: the connection, the slot, its creation, the status
 * interval, and `start::go_forward` for `--go-forward-only` (else the pipeline resumes from a
 * checkpoint only). Everything else keeps the pipeline's defaults.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto pipeline_options_for_replication(const replication_options& o) -> pipeline_options {
  pipeline_options p;
  p.conninfo = o.dsn;
  p.slot = o.slot;
  p.create_slot = o.create_slot;
  if (o.go_forward_only) p.start = start::go_forward{};
  p.status_interval = o.status_interval;
  return p;
}

}  // namespace replicant::examples

#endif  // REPLICANT_EXAMPLES_COMMON_REPLICATION_OPTIONS_HPP
