// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_PG_MIRROR_OPTIONS_HPP
#define REPLICANT_EXAMPLES_PG_MIRROR_OPTIONS_HPP

/// @file
/// replicant-pg-mirror's command line, parsed and checked before anything connects. Refusals name
/// the option, never the value given (a connection string can hold a password).

#include "../common/cli.hpp"
#include "../common/replication_options.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace replicant::examples::pg_mirror {

// The exit statuses are shared with the other examples; `pg_mirror::exit_ok` etc. keep working.
using examples::exit_failure;
using examples::exit_ok;
using examples::exit_refused;

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
 * `--test-confirmations`, for the deferred policy's crash matrix
 * (tests/integration/examples/exactly_once.cpp).
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
 * What the command line asked for: the source (`dsn` is `--source`), the slot, created when
 * absent, the publications and `--go-forward-only` as every example reads them, then the target
 * and how to mirror into it.
 *
 * @par Thread safety
 * A value type.
 */
struct options : replication_options {
  /// Connection string of the target.
  std::string target;
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
  /// The in-flight lag bound in MiB (pipeline_options::max_inflight_lag): WAL handed over and not
  /// yet durable; 0: no bound; up to 1,048,576.
  std::uint32_t max_inflight_lag_mib = 64;
  /// The WAL lag bound in MiB (pipeline_options::max_wal_lag): the server's WAL ahead of what is
  /// durable while the mirror holds the stream back; 0: no bound; up to 1,048,576.
  std::uint32_t max_wal_lag_mib = 64;
  /// Spill transactions larger than memory under this directory (`sink` mode); none: no spilling.
  std::optional<std::string> spill_dir;
  /// Ask the server to stream transactions in progress.
  bool streaming = false;
  /// Print the usage text and exit.
  bool help = false;
};

/// Why the command line was refused (the programs share the type).
using examples::refusal;

namespace detail {

// --source and --target, first in --help: the two databases the mirror joins.
struct database_arguments {
  std::string source;
  std::string target;

  explicit database_arguments(command_line& cli) {
    cli.text("--source", source, "CONNINFO", "", "libpq connection string of the source (the publisher)").required();
    cli.text("--target", target, "CONNINFO", "", "libpq connection string of the target; its tables must exist")
        .required();
  }
  database_arguments(const database_arguments&) = delete;
  auto operator=(const database_arguments&) -> database_arguments& = delete;
};

// The command line as text, before its values are checked: CLI11 reads into these.
struct arguments {
  command_line cli{"replicant-pg-mirror",
                   "Mirrors the published tables of a source PostgreSQL database into a target database. How often a\n"
                   "source transaction can take effect depends on where the checkpoint is kept (--checkpoint).",
                   "The target gets bookkeeping tables: replicant_mirror_applied (the commit LSN of every applied\n"
                   "transaction), and replicant_mirror_checkpoint (one row per slot; sink, batches, deferred) or\n"
                   "replicant_checkpoints (lib and lib-batched). Ctrl-C or SIGTERM stops cleanly; SIGKILL at any\n"
                   "moment is safe too. Exit status: 0 when stopped, 1 on a failure, 2 when refused to start. See\n"
                   "docs/pg_mirror.md."};
  database_arguments databases{cli};
  replication_arguments replication{
      cli,
      {.go_forward_only_help = "accept that a new slot mirrors only what commits from now on\n(required until a "
                               "checkpoint for the slot exists, unless\n--snapshot is given)",
       .dsn = false,
       .status_interval = false}};
  bool snapshot = false;
  std::string checkpoint = "sink";
  std::string batch_size = "100";
  std::string batch_delay_ms = "1000";
  std::string store_retries = "5";
  std::string store_backoff_ms = "1000";
  std::string max_unconfirmed = "100";
  std::string confirm_timeout_ms = "30000";
  std::string test_confirmations;
  max_inflight_argument max_inflight_mib;
  std::string max_inflight_lag_mib = "64";
  std::string max_wal_lag_mib = "64";
  std::string spill_dir;
  bool streaming = false;

  arguments() {
    cli.flag("--snapshot", snapshot,
             "with a new slot, first copy the published tables as they are (a\npoint-in-time snapshot), then mirror "
             "from exactly that point on;\n--checkpoint sink only. An interrupted copy makes the next start\nstop "
             "(snapshot_incomplete): drop the slot, then run it again");
    cli.text("--checkpoint", checkpoint, "MODE", "sink",
             "where the checkpoint lives and how transactions are grouped:\n"
             "  sink         one target transaction per source transaction,\n"
             "               which also moves the checkpoint: exactly once\n"
             "  batches      one target transaction per batch of source\n"
             "               transactions, which also moves the checkpoint:\n"
             "               exactly once\n"
             "  lib          one target transaction per source transaction;\n"
             "               the library writes the checkpoint afterwards\n"
             "               (table replicant_checkpoints): at least once,\n"
             "               at most one transaction again per crash\n"
             "  lib-batched  as lib, the checkpoint written once per batch: at\n"
             "               least once, at most one batch again per crash\n"
             "  deferred     as sink, but a worker thread of the sink applies\n"
             "               each transaction on a connection of its own and\n"
             "               confirms it afterwards (deferred_checkpoint):\n"
             "               exactly once");
    cli.text("--batch-size", batch_size, "N", "100", "batches and lib-batched: source transactions per batch");
    cli.text("--batch-delay-ms", batch_delay_ms, "MS", "1000",
             "batches and lib-batched: longest wait of a transaction in an\nunfinished batch, in milliseconds");
    cli.text("--store-retries", store_retries, "N", "5",
             "lib and lib-batched: failed checkpoint writes retried before the\nmirror stops with exit status 1");
    cli.text("--store-backoff-ms", store_backoff_ms, "MS", "1000", "lib and lib-batched: pause between two attempts");
    cli.text("--max-unconfirmed", max_unconfirmed, "N", "100",
             "deferred: most transactions handed to the worker and not yet\nconfirmed");
    cli.text("--confirm-timeout-ms", confirm_timeout_ms, "MS", "30000",
             "deferred: longest a transaction may wait for its confirmation\nbefore the mirror stops with exit "
             "status 1");
    // Test only (docs/pg_mirror.md): deliberately wrong confirmations, for the crash matrix. An
    // empty group keeps it out of --help.
    cli.text("--test-confirmations", test_confirmations, "HOOK", "", "").group("");
    max_inflight_mib.declare(cli);
    cli.text("--max-inflight-lag-mib", max_inflight_lag_mib, "N", "64",
             "the most WAL handed over and not yet durable, in MiB, before the\nmirror stops (sink_too_slow); 0: no "
             "bound");
    cli.text("--max-wal-lag-mib", max_wal_lag_mib, "N", "64",
             "the most server WAL ahead of what is durable, in MiB, while the\nmirror holds the stream back, before it "
             "stops (sink_too_slow); 0: no bound");
    cli.text("--spill-dir", spill_dir, "DIR", "none: a transaction larger than memory stops the mirror",
             "sink mode: hold transactions larger than memory partly in scratch\nfiles under DIR instead of "
             "stopping (disk_spill)");
    cli.flag("--streaming", streaming, "receive large transactions while they are still in progress");
  }
  arguments(const arguments&) = delete;
  auto operator=(const arguments&) -> arguments& = delete;
};

// The values @p a read, checked, into @p o: parse_options() after the syntax and `--help`.
// @throws std::bad_alloc only.
inline auto check(const arguments& a, options& o) -> std::optional<refusal> {
  constexpr std::uint32_t an_hour_ms = 3'600'000;
  const auto given = [&](const char* name) { return a.cli.given(name); };
  const bool batch_given = given("--batch-size") || given("--batch-delay-ms");
  const bool store_given = given("--store-retries") || given("--store-backoff-ms");
  const bool deferred_given =
      given("--max-unconfirmed") || given("--confirm-timeout-ms") || given("--test-confirmations");
  o.snapshot = a.snapshot;
  o.streaming = a.streaming;
  if (a.databases.source.empty()) return refusal{"--source needs a connection string"};
  if (a.databases.target.empty()) return refusal{"--target needs a connection string"};
  o.dsn = a.databases.source;
  o.target = a.databases.target;
  if (auto bad = a.replication.check(o)) return bad->to_refusal();
  static constexpr std::array modes{checkpoint_mode::sink, checkpoint_mode::batches, checkpoint_mode::lib,
                                    checkpoint_mode::lib_batched, checkpoint_mode::deferred};
  const auto found =
      std::find_if(modes.begin(), modes.end(), [&](checkpoint_mode m) { return to_string(m) == a.checkpoint; });
  if (found == modes.end()) return refusal{"--checkpoint needs one of sink, batches, lib, lib-batched, deferred"};
  o.checkpoint = *found;
  // The value of a numeric option, or nothing when it is out of range.
  if (auto bad = a.max_inflight_mib.check(o.max_inflight_mib)) return bad;
  const auto lag_bound = parse_unsigned(a.max_inflight_lag_mib, 0, 1'048'576);
  if (!lag_bound) return refusal{"--max-inflight-lag-mib needs a number from 0 to 1048576"};
  o.max_inflight_lag_mib = *lag_bound;
  const auto wal_lag_bound = parse_unsigned(a.max_wal_lag_mib, 0, 1'048'576);
  if (!wal_lag_bound) return refusal{"--max-wal-lag-mib needs a number from 0 to 1048576"};
  o.max_wal_lag_mib = *wal_lag_bound;
  if (given("--spill-dir")) {
    if (a.spill_dir.empty()) return refusal{"--spill-dir needs a directory"};
    o.spill_dir = a.spill_dir;
  }
  const auto batch_size = parse_unsigned(a.batch_size, 1, 1'000'000);
  if (!batch_size) return refusal{"--batch-size needs a number from 1 to 1000000"};
  o.batch_size = *batch_size;
  const auto batch_delay = parse_unsigned(a.batch_delay_ms, 1, an_hour_ms);
  if (!batch_delay) return refusal{"--batch-delay-ms needs a number of milliseconds from 1 to 3600000"};
  o.batch_delay = std::chrono::milliseconds{*batch_delay};
  const auto retries = parse_unsigned(a.store_retries, 0, 1'000'000);
  if (!retries) return refusal{"--store-retries needs a number from 0 to 1000000"};
  o.store_retries = *retries;
  const auto backoff = parse_unsigned(a.store_backoff_ms, 0, an_hour_ms);
  if (!backoff) return refusal{"--store-backoff-ms needs a number of milliseconds from 0 to 3600000"};
  o.store_backoff = std::chrono::milliseconds{*backoff};
  const auto unconfirmed = parse_unsigned(a.max_unconfirmed, 1, 1'000'000);
  if (!unconfirmed) return refusal{"--max-unconfirmed needs a number from 1 to 1000000"};
  o.max_unconfirmed = *unconfirmed;
  const auto confirm = parse_unsigned(a.confirm_timeout_ms, 1, an_hour_ms);
  if (!confirm) return refusal{"--confirm-timeout-ms needs a number of milliseconds from 1 to 3600000"};
  o.confirm_timeout = std::chrono::milliseconds{*confirm};
  if (given("--test-confirmations")) {
    const auto hook = parse_confirmation_hook(a.test_confirmations);
    if (!hook) return refusal{"--test-confirmations needs swap-pairs, drop:N or fail:N"};
    o.test_confirmations = *hook;
  }
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
  if (o.spill_dir && o.checkpoint != checkpoint_mode::sink) {
    return refusal{"--spill-dir applies to --checkpoint sink only"};
  }
  if (o.snapshot && o.checkpoint != checkpoint_mode::sink) {
    return refusal{"--snapshot applies to --checkpoint sink only"};
  }
  if (o.snapshot && o.go_forward_only) return refusal{"--snapshot and --go-forward-only exclude each other"};
  return std::nullopt;
}

}  // namespace detail

/// The `--help` text: every option with its default. @throws std::bad_alloc only.
[[nodiscard]] inline auto usage() -> std::string { return usage_of<detail::arguments>(); }

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
  return parse_command_line<options, detail::arguments>(args, detail::check);
}

}  // namespace replicant::examples::pg_mirror

#endif  // REPLICANT_EXAMPLES_PG_MIRROR_OPTIONS_HPP
