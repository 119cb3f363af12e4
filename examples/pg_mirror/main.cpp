// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-pg-mirror: mirrors the published tables of a source PostgreSQL database into a target
// database, each source transaction applied exactly once (checkpoint modes sink, batches and
// deferred) or at least once (lib, lib-batched). How: docs/pg_mirror.md, or --help.

#include "../common/program.hpp"
#include "../common/running_pipeline.hpp"
#include "../common/stop_signal.hpp"
#include "mirror_deferred_sink.hpp"
#include "mirror_sink.hpp"
#include "options.hpp"

#include <replicant/checkpoint/deferred.hpp>
#include <replicant/checkpoint/lib_owned.hpp>
#include <replicant/checkpoint/postgres_store.hpp>
#include <replicant/checkpoint/sink_owned.hpp>
#include <replicant/checkpoint/sink_owned_batches.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/pipeline.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <variant>

namespace {

using namespace replicant::examples::pg_mirror;
using replicant::examples::stop_signal;
using namespace std::chrono_literals;

// One pipeline type per kind of checkpoint policy; lib and lib-batched differ only in settings.
using lib_policy = replicant::lib_owned_checkpoint<replicant::postgres_checkpoint_store>;
using sink_pipeline = replicant::pgoutput_pipeline<mirror_sink>;
using batch_pipeline = replicant::pgoutput_pipeline<mirror_batch_sink, replicant::sink_owned_batches>;
using lib_pipeline = replicant::pgoutput_pipeline<mirror_lib_sink, lib_policy>;
using spilling_pipeline =
    replicant::pgoutput_pipeline<mirror_sink, replicant::sink_owned_checkpoint, replicant::disk_spill>;
using deferred_pipeline = replicant::pgoutput_pipeline<mirror_deferred_sink, replicant::deferred_checkpoint>;

// The stop signal's hook also stops the running pipeline, whichever type it has.
constexpr auto stop_hook = &replicant::examples::stop_running_pipelines<sink_pipeline, batch_pipeline, lib_pipeline,
                                                                        spilling_pipeline, deferred_pipeline>;

// One line on stderr. Only fixed text, codes, SQLSTATEs, LSNs and counts ever reach it: no value,
// name or connection string.
auto say(const std::string& line) -> void { std::fprintf(stderr, "replicant-pg-mirror: %s\n", line.c_str()); }

auto describe(std::error_code ec, const std::string& sqlstate) -> std::string {
  std::string out = ec.message() + " [" + ec.category().name() + ':' + std::to_string(ec.value()) + ']';
  if (!sqlstate.empty()) out += "; sqlstate " + sqlstate;
  return out;
}

// Runs a pipeline of type Pipeline, made with @p policies, until it is stopped or halts for good, and
// prints the counts. @p target is where the target's writes happen (a mirror_target, or the deferred
// sink, whose worker writes): it tells what was done, and whether a failure is worth a retry.
template <class Pipeline, class Target, class Sink, class... Policies>
auto stream(const Target& target, Sink& sink, const options& o, Policies... policies) -> int {
  auto po = replicant::examples::pipeline_options_for_replication(o);
  // parse_options() refuses --snapshot with --go-forward-only: two start modes at once.
  if (o.snapshot) po.start = replicant::start::point_in_time_snapshot{};
  // A restarted mirror can find its previous walsender still finishing for a moment (the slot is
  // "active"): allow a few seconds of that before giving up.
  po.max_command_retries = 30;
  po.max_reconnect_delay = 2s;
  po.max_inflight_bytes = std::size_t{o.max_inflight_mib} << 20U;
  po.max_inflight_lag = std::size_t{o.max_inflight_lag_mib} << 20U;
  po.max_wal_lag = std::size_t{o.max_wal_lag_mib} << 20U;
  const replicant::pgoutput_options pg{.publications = o.publications, .streaming = o.streaming};
  Pipeline pipeline{sink, pg, std::move(policies)..., po};
  say(std::string{"started; checkpoint mode "} + std::string{to_string(o.checkpoint)});

  int status = exit_ok;
  auto delay = 100ms;
  // Once this scope ends no handler runs any more: the pipeline may then be destroyed safely.
  for (const replicant::examples::running_pipeline_scope running{pipeline};;) {
    const auto before = target.counts().applied + target.counts().skipped;
    std::error_code ec;
    pipeline.run(ec);
    if (ec != replicant::errc::halted || stop_signal::requested()) break;
    const auto& h = *pipeline.last_halt();  // errc::halted says that it stopped, the halt says why
    // The target went away (or was briefly unable to serve): nothing was acknowledged past what
    // its checkpoint (or the store's) covers, so running again resumes exactly there. A store that
    // stays away halts `checkpoint_store_failed` once its retry budget is spent: that is final.
    if (h.reason == replicant::halt_reason::sink_failed && target.retryable()) {
      if (target.counts().applied + target.counts().skipped != before) delay = 100ms;
      say("the target is unavailable (" + describe(h.cause, target.sqlstate()) + "); retrying");
      stop_signal::sleep_for(delay);
      delay = std::min<std::chrono::milliseconds>(delay * 2, 5s);
      continue;
    }
    std::string line = replicant::describe(h);
    if (h.reason == replicant::halt_reason::sink_failed && !target.sqlstate().empty()) {
      line += "; target sqlstate " + target.sqlstate();
    }
    say(line);
    status = replicant::is_start_rejection(h.reason) ? exit_refused : exit_failure;
    break;
  }

  const mirror_counts c = target.counts();
  say(std::string{status == exit_ok ? "stopped" : "ended"} + "; " + std::to_string(c.applied) +
      " transactions applied, " + std::to_string(c.skipped) + " skipped as already applied, " +
      std::to_string(c.changes) + " changes, " + std::to_string(c.unchanged_kept) + " unchanged TOAST columns kept, " +
      std::to_string(c.superseded) + " superseded changes skipped, " + std::to_string(c.commits) +
      " target transactions; acknowledged up to " + replicant::to_string(pipeline.durable_lsn()));
  return status;
}

auto run(const options& o) -> int {
  // Only where the library owns the checkpoint can a transaction be applied twice (see mirror_target).
  mirror_target target{o.target, o.slot, stop_signal::fd(), is_lib_owned(o.checkpoint)};
  if (auto ready = target.prepare(!is_lib_owned(o.checkpoint)); !ready) {
    if (stop_signal::requested()) return exit_ok;
    say("preparing the target database failed: " + describe(ready.error(), target.sqlstate()));
    return exit_failure;
  }

  switch (o.checkpoint) {
    case checkpoint_mode::sink: {
      mirror_sink sink{target};
      if (o.spill_dir) {
        return stream<spilling_pipeline>(target, sink, o, replicant::sink_owned_checkpoint{},
                                         replicant::disk_spill{.dir = *o.spill_dir});
      }
      return stream<sink_pipeline>(target, sink, o, replicant::sink_owned_checkpoint{});
    }
    case checkpoint_mode::batches: {
      mirror_batch_sink sink{target};
      return stream<batch_pipeline>(
          target, sink, o, replicant::sink_owned_batches{.max_transactions = o.batch_size, .max_delay = o.batch_delay});
    }
    case checkpoint_mode::deferred: {
      // The sink's worker writes on a connection of its own; `target` serves checkpoint() on the
      // pipeline's thread.
      mirror_deferred_sink sink{target, mirror_target{o.target, o.slot, stop_signal::fd()}, o.test_confirmations};
      const int status = stream<deferred_pipeline>(
          sink, sink, o,
          replicant::deferred_checkpoint{
              .max_unconfirmed = o.max_unconfirmed, .max_unconfirmed_bytes = 0, .confirm_timeout = o.confirm_timeout});
      if (o.test_confirmations) {
        say("test option --test-confirmations " + std::string{to_string(o.test_confirmations.what)} + ": " +
            std::to_string(sink.hook_actions()) + " interventions");
      }
      return status;
    }
    case checkpoint_mode::lib:
    case checkpoint_mode::lib_batched: {
      mirror_lib_sink sink{target};
      // The store keeps its own table in the target database, on its own connection: its writes
      // commit separately from the rows, which is what makes this mode at-least-once.
      lib_policy policy{
          .store = replicant::postgres_checkpoint_store{{.conninfo = o.target, .table = "replicant_checkpoints"}},
          .batch = std::nullopt,
          .max_retries = o.store_retries,
          .retry_backoff = o.store_backoff};
      if (o.checkpoint == checkpoint_mode::lib_batched) {
        policy.batch = replicant::checkpoint_batching{.max_transactions = o.batch_size, .max_delay = o.batch_delay};
      }
      return stream<lib_pipeline>(target, sink, o, std::move(policy));
    }
  }
  return exit_failure;
}

}  // namespace

auto main(int argc, char** argv) -> int {
  return replicant::examples::program_main(argc, argv, parse_options, usage, stop_hook, say, run);
}
