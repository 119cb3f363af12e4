// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-pg-mirror: mirrors the published tables of a source PostgreSQL database into a target
// database, each source transaction applied exactly once. How: docs/pg_mirror.md, or --help.

#include "../common/stop_signal.hpp"
#include "mirror_sink.hpp"
#include "options.hpp"

#include <replicant/halt.hpp>
#include <replicant/lsn.hpp>
#include <replicant/pipeline.hpp>

#include <poll.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <new>
#include <span>
#include <string>
#include <variant>

namespace {

using namespace replicant::examples::pg_mirror;
using replicant::examples::stop_signal;
using namespace std::chrono_literals;
using mirror_pipeline = replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint,
                                            replicant::no_spill, mirror_sink>;

// The stop signal's hook also stops the running pipeline. It touches only a lock-free atomic
// pointer and pipeline::stop(), both async-signal-safe. Further signals change nothing.
std::atomic<mirror_pipeline*> active_pipeline{nullptr};
static_assert(std::atomic<mirror_pipeline*>::is_always_lock_free);

auto stop_active_pipeline() noexcept -> void {
  if (auto* p = active_pipeline.load()) p->stop();
}

// One line on stderr. Only fixed text, codes, SQLSTATEs, LSNs and counts ever reach it: no value,
// name or connection string.
auto say(const std::string& line) -> void { std::fprintf(stderr, "replicant-pg-mirror: %s\n", line.c_str()); }

auto describe(std::error_code ec, const std::string& sqlstate) -> std::string {
  std::string out = ec.message() + " [" + ec.category().name() + ':' + std::to_string(ec.value()) + ']';
  if (!sqlstate.empty()) out += "; sqlstate " + sqlstate;
  return out;
}

auto run(const options& o) -> int {
  mirror_sink sink{o.target, o.slot, stop_signal::fd()};
  if (auto ready = sink.prepare(); !ready) {
    if (stop_signal::requested()) return exit_ok;
    say("preparing the target database failed: " + describe(ready.error(), sink.sqlstate()));
    return exit_failure;
  }

  replicant::pipeline_options po;
  po.conninfo = o.source;
  po.slot = o.slot;
  po.publications = o.publications;
  po.go_forward_only = o.go_forward_only;
  // A restarted mirror can find its previous walsender still finishing for a moment (the slot is
  // "active"): allow a few seconds of that before giving up.
  po.max_command_retries = 30;
  po.max_reconnect_delay = 2s;
  mirror_pipeline pipeline{sink, po};
  active_pipeline.store(&pipeline);
  if (stop_signal::requested()) pipeline.stop();
  say("started");

  int status = exit_ok;
  auto delay = 100ms;
  for (;;) {
    const auto before = sink.counts().applied + sink.counts().skipped;
    std::error_code ec;
    pipeline.run(ec);
    if (!ec || stop_signal::requested()) break;
    const auto& h = *pipeline.last_halt();
    // The target went away (or was briefly unable to serve): nothing was acknowledged past what it
    // committed, so running again resumes exactly at its checkpoint.
    if (h.reason == replicant::halt_reason::sink_failed && sink.retryable()) {
      if (sink.counts().applied + sink.counts().skipped != before) delay = 100ms;
      say("the target is unavailable (" + describe(h.cause, sink.sqlstate()) + "); retrying");
      pollfd p{stop_signal::fd(), POLLIN, 0};
      static_cast<void>(::poll(&p, 1, static_cast<int>(delay.count())));
      delay = std::min<std::chrono::milliseconds>(delay * 2, 5s);
      continue;
    }
    std::string line = replicant::describe(h);
    if (h.reason == replicant::halt_reason::sink_failed && !sink.sqlstate().empty()) {
      line += "; target sqlstate " + sink.sqlstate();
    }
    say(line);
    status = replicant::is_start_rejection(h.reason) ? exit_refused : exit_failure;
    break;
  }
  // Once this returns no handler runs any more: the pipeline may then be destroyed safely.
  stop_signal::block();
  active_pipeline.store(nullptr);

  const auto& c = sink.counts();
  say(std::string{status == exit_ok ? "stopped" : "ended"} + "; " + std::to_string(c.applied) +
      " transactions applied, " + std::to_string(c.skipped) + " skipped as already applied, " +
      std::to_string(c.changes) + " changes, " + std::to_string(c.unchanged_kept) +
      " unchanged TOAST columns kept; acknowledged up to " + replicant::to_string(pipeline.durable_lsn()));
  return status;
}

}  // namespace

auto main(int argc, char** argv) -> int {
  try {
    const auto parsed =
        parse_options(std::span<const char* const>{argv + 1, static_cast<std::size_t>(argc > 0 ? argc - 1 : 0)});
    if (const auto* r = std::get_if<refusal>(&parsed)) {
      say(std::string{"refused to start: "} + std::string{r->reason});
      return exit_refused;
    }
    const auto& o = std::get<options>(parsed);
    if (o.help) {
      std::fputs(usage_text.data(), stdout);
      return exit_ok;
    }
    if (!stop_signal::install(&stop_active_pipeline)) {
      say("setting up signal handling failed");
      return exit_failure;
    }
    return run(o);
  } catch (const std::bad_alloc&) {
    say("out of memory");
    return exit_failure;
  }
}
