// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_PG_MIRROR_OPTIONS_HPP
#define REPLICANT_EXAMPLES_PG_MIRROR_OPTIONS_HPP

/// @file
/// replicant-pg-mirror's command line, parsed and checked before anything connects. Refusals name
/// the option, never the value given (a connection string can hold a password).

#include "../common/cli.hpp"

#include <replicant/core/identifier.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
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

Mirrors the published tables of a source PostgreSQL database into a target database. How often a
source transaction can take effect depends on where the checkpoint is kept (--checkpoint).

Options:
  --source CONNINFO     libpq connection string of the source (the publisher)
  --target CONNINFO     libpq connection string of the target; its tables must exist already
  --slot NAME           logical replication slot ([a-z0-9_], at most 63 bytes); created if absent
  --publication NAME    publication to mirror (repeatable; at least one)
  --go-forward-only     accept that a new slot mirrors only what commits from now on (required
                        until a checkpoint for the slot exists, unless --snapshot is given)
  --snapshot            with a new slot, first copy the published tables as they are (a
                        point-in-time snapshot), then mirror from exactly that point on;
                        --checkpoint sink only. An interrupted copy makes the next start stop
                        (snapshot_incomplete): drop the slot, then run it again
  --checkpoint MODE     where the checkpoint lives and how transactions are grouped:
                          sink         one target transaction per source transaction, which also
                                       moves the checkpoint: exactly once (the default)
                          batches      one target transaction per batch of source transactions,
                                       which also moves the checkpoint: exactly once
                          lib          one target transaction per source transaction; the library
                                       writes the checkpoint afterwards (table replicant_checkpoints):
                                       at least once, at most one transaction again per crash
                          lib-batched  as lib, the checkpoint written once per batch: at least
                                       once, at most one batch again per crash
                          deferred     as sink, but a worker thread of the sink applies each
                                       transaction on a connection of its own and confirms it
                                       afterwards (deferred_checkpoint): exactly once
  --batch-size N        batches and lib-batched: source transactions per batch (default 100)
  --batch-delay-ms MS   batches and lib-batched: longest wait of a transaction in an unfinished
                        batch, in milliseconds (default 1000)
  --store-retries N     lib and lib-batched: failed checkpoint writes retried before the mirror
                        stops with exit status 1 (default 5)
  --store-backoff-ms MS lib and lib-batched: pause between two attempts (default 1000)
  --max-unconfirmed N   deferred: most transactions handed to the worker and not yet confirmed
                        (default 100)
  --confirm-timeout-ms MS
                        deferred: longest a transaction may wait for its confirmation before
                        the mirror stops with exit status 1 (default 30000)
  --max-inflight-mib N  memory budget of the pipeline in MiB (default 64)
  --spill-dir DIR       sink mode: hold transactions larger than memory partly in scratch files
                        under DIR instead of stopping (disk_spill)
  --streaming           receive large transactions while they are still in progress
  -h, --help            print this help and exit

The target gets bookkeeping tables: replicant_mirror_applied (the commit LSN of every applied
transaction), and replicant_mirror_checkpoint (one row per slot; sink, batches, deferred) or
replicant_checkpoints (lib and lib-batched). Ctrl-C or SIGTERM stops cleanly; SIGKILL at any
moment is safe too. Exit status: 0 when stopped, 1 on a failure, 2 when refused to start. See
docs/pg_mirror.md.
)";

/**
 * Where the checkpoint lives, and so which checkpoint policy the replication pipeline runs with.
 *
 * The first two keep it in the target, written in the same target transaction as the rows
 * (exactly once in effect); the last two let the library write it after the rows were committed
 * (at least once: a crash in between applies the last transaction, or batch, again).
 */
enum class checkpoint_mode {
  /// `sink_owned_checkpoint`: one target transaction per source transaction, with the checkpoint.
  sink,
  /// `sink_owned_batches`: one target transaction per batch, with the batch's last commit LSN.
  batches,
  /// `lib_owned_checkpoint<postgres_checkpoint_store>`: the library writes the checkpoint after
  /// each source transaction was applied.
  lib,
  /// The same, with `checkpoint_batching`: the checkpoint written once per batch.
  lib_batched,
  /// `deferred_checkpoint`: as `sink`, one target transaction per source transaction with the
  /// claim, but applied by a worker thread of the sink, which confirms each one afterwards.
  deferred,
};

/// The mode's name as `--checkpoint` spells it, e.g. `"lib-batched"`. Never throws.
[[nodiscard]] constexpr auto to_string(checkpoint_mode m) noexcept -> std::string_view {
  switch (m) {
    case checkpoint_mode::sink: return "sink";
    case checkpoint_mode::batches: return "batches";
    case checkpoint_mode::lib: return "lib";
    case checkpoint_mode::lib_batched: return "lib-batched";
    case checkpoint_mode::deferred: return "deferred";
  }
  return "sink";
}

/// Whether the library, rather than the target transaction, writes the checkpoint. Never throws.
[[nodiscard]] constexpr auto is_lib_owned(checkpoint_mode m) noexcept -> bool {
  return m == checkpoint_mode::lib || m == checkpoint_mode::lib_batched;
}

/// Whether transactions are grouped in batches (of target transactions, or of checkpoint writes).
/// Never throws.
[[nodiscard]] constexpr auto is_batched(checkpoint_mode m) noexcept -> bool {
  return m == checkpoint_mode::batches || m == checkpoint_mode::lib_batched;
}

/**
 * How the deferred mode's worker misbehaves with its confirmations, on purpose: the test-only option
 * `--test-confirmations`, for the deferred policy's crash matrix (tests/integration/exactly_once.cpp).
 * The worker still applies every transaction in order, with the claim; only what it reports, and
 * when, changes. Counting is by transaction the worker applied in this process, from 1.
 *
 * @par Thread safety
 * A value type.
 */
struct confirmation_hook {
  /// What the worker does.
  enum class kind : std::uint8_t {
    /// Nothing unusual: each transaction is confirmed once it is committed.
    none,
    /// `swap-pairs`: confirms in reversed pairs (the second before the first) whenever a second
    /// one is waiting already.
    swap_pairs,
    /// `drop:N`: never confirms transaction N (the policy's timeout must halt).
    drop,
    /// `fail:N`: reports transaction N failed, after confirming the one after it.
    fail_after_next,
  };
  /// What the worker does.
  kind what = kind::none;
  /// `drop` and `fail`: the transaction concerned, from 1.
  std::uint64_t nth = 0;

  /// Whether a hook is set. Never throws.
  [[nodiscard]] explicit operator bool() const noexcept { return what != kind::none; }
};

/// The hook's name as `--test-confirmations` spells it, without its number. Never throws.
[[nodiscard]] constexpr auto to_string(confirmation_hook::kind k) noexcept -> std::string_view {
  switch (k) {
    case confirmation_hook::kind::none: return "none";
    case confirmation_hook::kind::swap_pairs: return "swap-pairs";
    case confirmation_hook::kind::drop: return "drop";
    case confirmation_hook::kind::fail_after_next: return "fail";
  }
  return "none";
}

/// Parses `swap-pairs`, `drop:N` or `fail:N` (N from 1 to 1,000,000,000). Never throws.
[[nodiscard]] inline auto parse_confirmation_hook(std::string_view v) noexcept -> std::optional<confirmation_hook> {
  if (v == "swap-pairs") return confirmation_hook{confirmation_hook::kind::swap_pairs, 0};
  const auto colon = v.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const auto name = v.substr(0, colon);
  const auto n = parse_unsigned(v.substr(colon + 1), 1, 1'000'000'000);
  if (!n) return std::nullopt;
  if (name == "drop") return confirmation_hook{confirmation_hook::kind::drop, *n};
  if (name == "fail") return confirmation_hook{confirmation_hook::kind::fail_after_next, *n};
  return std::nullopt;
}

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
  /// Copy the tables first (point-in-time snapshot), then stream from the snapshot's point.
  bool snapshot = false;
  /// Where the checkpoint lives.
  checkpoint_mode checkpoint = checkpoint_mode::sink;
  /// Source transactions per batch (`batches`, `lib-batched`); 1 to 1,000,000.
  std::uint32_t batch_size = 100;
  /// Longest wait of a transaction in an unfinished batch; 1 ms to 1 h.
  std::chrono::milliseconds batch_delay{1000};
  /// Transient checkpoint-store faults retried before halting (`lib`, `lib-batched`); 0 to 1,000,000.
  std::uint32_t store_retries = 5;
  /// Pause between two attempts at the store; 0 to 1 h.
  std::chrono::milliseconds store_backoff{1000};
  /// Transactions handed to the worker and not yet confirmed, at most (`deferred`); 1 to 1,000,000.
  std::uint32_t max_unconfirmed = 100;
  /// Longest wait for a confirmation (`deferred`); 1 ms to 1 h.
  std::chrono::milliseconds confirm_timeout{30000};
  /// Test only (`deferred`): how the worker misbehaves with its confirmations.
  confirmation_hook test_confirmations;
  /// The pipeline's resident budget in MiB; 1 to 65,536.
  std::uint32_t max_inflight_mib = 64;
  /// Spill transactions larger than memory under this directory (`sink` mode); none: no spilling.
  std::optional<std::string> spill_dir;
  /// Ask the server to stream transactions in progress.
  bool streaming = false;
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
 * Batch options are refused unless the mode batches, and store options unless the library owns
 * the checkpoint, whatever their order: an option that would be silently ignored is a mistake.
 *
 * @return the options, or a @ref refusal that never repeats an argument.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto parse_options(std::span<const char* const> args) -> std::variant<options, refusal> {
  constexpr std::uint32_t an_hour_ms = 3'600'000;
  options o;
  bool batch_given = false;
  bool store_given = false;
  bool deferred_given = false;
  argument_reader reader{args};
  while (reader.next()) {
    const std::string_view name = reader.name();
    const bool inline_value = reader.has_inline_value();
    const auto take = [&] { return reader.take_value(); };
    // The value of a numeric option, or nothing when it is missing or out of range.
    const auto number = [&](std::uint32_t low, std::uint32_t high) -> std::optional<std::uint32_t> {
      const auto v = take();
      if (!v) return std::nullopt;
      return parse_unsigned(*v, low, high);
    };

    if ((name == "-h" || name == "--help") && !inline_value) {
      o.help = true;
    } else if (name == "--go-forward-only" && !inline_value) {
      o.go_forward_only = true;
    } else if (name == "--snapshot" && !inline_value) {
      o.snapshot = true;
    } else if (name == "--streaming" && !inline_value) {
      o.streaming = true;
    } else if (name == "--max-inflight-mib") {
      const auto n = number(1, 65'536);
      if (!n) return refusal{"--max-inflight-mib needs a number from 1 to 65536"};
      o.max_inflight_mib = *n;
    } else if (name == "--spill-dir") {
      const auto v = take();
      if (!v || v->empty()) return refusal{"--spill-dir needs a directory"};
      o.spill_dir = std::string{*v};
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
    } else if (name == "--checkpoint") {
      static constexpr std::array modes{checkpoint_mode::sink, checkpoint_mode::batches, checkpoint_mode::lib,
                                        checkpoint_mode::lib_batched, checkpoint_mode::deferred};
      const auto v = take();
      const auto found =
          std::find_if(modes.begin(), modes.end(), [&](checkpoint_mode m) { return v && to_string(m) == *v; });
      if (found == modes.end()) return refusal{"--checkpoint needs one of sink, batches, lib, lib-batched, deferred"};
      o.checkpoint = *found;
    } else if (name == "--batch-size") {
      const auto n = number(1, 1'000'000);
      if (!n) return refusal{"--batch-size needs a number from 1 to 1000000"};
      o.batch_size = *n;
      batch_given = true;
    } else if (name == "--batch-delay-ms") {
      const auto n = number(1, an_hour_ms);
      if (!n) return refusal{"--batch-delay-ms needs a number of milliseconds from 1 to 3600000"};
      o.batch_delay = std::chrono::milliseconds{*n};
      batch_given = true;
    } else if (name == "--store-retries") {
      const auto n = number(0, 1'000'000);
      if (!n) return refusal{"--store-retries needs a number from 0 to 1000000"};
      o.store_retries = *n;
      store_given = true;
    } else if (name == "--store-backoff-ms") {
      const auto n = number(0, an_hour_ms);
      if (!n) return refusal{"--store-backoff-ms needs a number of milliseconds from 0 to 3600000"};
      o.store_backoff = std::chrono::milliseconds{*n};
      store_given = true;
    } else if (name == "--max-unconfirmed") {
      const auto n = number(1, 1'000'000);
      if (!n) return refusal{"--max-unconfirmed needs a number from 1 to 1000000"};
      o.max_unconfirmed = *n;
      deferred_given = true;
    } else if (name == "--confirm-timeout-ms") {
      const auto n = number(1, an_hour_ms);
      if (!n) return refusal{"--confirm-timeout-ms needs a number of milliseconds from 1 to 3600000"};
      o.confirm_timeout = std::chrono::milliseconds{*n};
      deferred_given = true;
    } else if (name == "--test-confirmations") {
      // Test only (docs/pg_mirror.md): deliberately wrong confirmations, for the crash matrix.
      const auto v = take();
      const auto hook = v ? parse_confirmation_hook(*v) : std::nullopt;
      if (!hook) return refusal{"--test-confirmations needs swap-pairs, drop:N or fail:N"};
      o.test_confirmations = *hook;
      deferred_given = true;
    } else {
      return refusal{"unknown option or misplaced value (see --help)"};
    }
  }
  if (o.help) return o;
  if (o.source.empty() || o.target.empty()) return refusal{"--source and --target are required (see --help)"};
  if (o.slot.empty()) return refusal{"--slot is required (see --help)"};
  if (o.publications.empty()) return refusal{"at least one --publication is required (see --help)"};
  if (batch_given && !is_batched(o.checkpoint)) {
    return refusal{"--batch-size and --batch-delay-ms apply to --checkpoint batches and lib-batched only"};
  }
  if (store_given && !is_lib_owned(o.checkpoint)) {
    return refusal{"--store-retries and --store-backoff-ms apply to --checkpoint lib and lib-batched only"};
  }
  if (deferred_given && o.checkpoint != checkpoint_mode::deferred) {
    return refusal{
        "--max-unconfirmed, --confirm-timeout-ms and --test-confirmations apply to --checkpoint deferred only"};
  }
  if (o.spill_dir && o.checkpoint != checkpoint_mode::sink)
    return refusal{"--spill-dir applies to --checkpoint sink only"};
  if (o.snapshot && o.checkpoint != checkpoint_mode::sink)
    return refusal{"--snapshot applies to --checkpoint sink only"};
  if (o.snapshot && o.go_forward_only) return refusal{"--snapshot and --go-forward-only exclude each other"};
  return o;
}

}  // namespace replicant::examples::pg_mirror

#endif  // REPLICANT_EXAMPLES_PG_MIRROR_OPTIONS_HPP
