// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-pg-mirror: mirrors the published tables of a source PostgreSQL database into a target
// database, each source transaction applied exactly once. How: docs/pg_mirror.md, or --help.

#include "mirror_sink.hpp"
#include "options.hpp"

#include <replicant/halt.hpp>
#include <replicant/lsn.hpp>
#include <replicant/pipeline.hpp>

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <new>
#include <span>
#include <string>
#include <variant>

namespace {

using namespace replicant::examples::pg_mirror;
using namespace std::chrono_literals;
using mirror_pipeline = replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint,
                                            replicant::no_spill, mirror_sink>;

// Stop requests. The handler touches only these: a flag, an eventfd write and pipeline::stop(), all
// async-signal-safe (the pointer is a lock-free atomic). Further signals change nothing.
volatile std::sig_atomic_t stop_requested = 0;
int stop_fd = -1;
std::atomic<mirror_pipeline*> active_pipeline{nullptr};
static_assert(std::atomic<mirror_pipeline*>::is_always_lock_free);

extern "C" void on_stop_signal(int) {
  stop_requested = 1;
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto n = ::write(stop_fd, &one, sizeof one);
  if (auto* p = active_pipeline.load()) p->stop();
}

auto install_signal_handlers() -> bool {
  stop_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (stop_fd < 0) return false;
  struct sigaction sa {};
  sa.sa_handler = &on_stop_signal;
  sigemptyset(&sa.sa_mask);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  return ::sigaction(SIGINT, &sa, nullptr) == 0 && ::sigaction(SIGTERM, &sa, nullptr) == 0 &&
         ::sigaction(SIGPIPE, &ignore, nullptr) == 0;
}

// Once this returns no handler runs any more: the pipeline may then be destroyed safely.
auto block_stop_signals() -> void {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  ::sigprocmask(SIG_BLOCK, &set, nullptr);
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
  mirror_sink sink{o.target, o.slot, stop_fd};
  if (auto ready = sink.prepare(); !ready) {
    if (stop_requested != 0) return exit_ok;
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
  if (stop_requested != 0) pipeline.stop();
  say("started");

  int status = exit_ok;
  auto delay = 100ms;
  for (;;) {
    const auto before = sink.counts().applied + sink.counts().skipped;
    std::error_code ec;
    pipeline.run(ec);
    if (!ec || stop_requested != 0) break;
    const auto& h = *pipeline.last_halt();
    // The target went away (or was briefly unable to serve): nothing was acknowledged past what it
    // committed, so running again resumes exactly at its checkpoint.
    if (h.reason == replicant::halt_reason::sink_failed && sink.retryable()) {
      if (sink.counts().applied + sink.counts().skipped != before) delay = 100ms;
      say("the target is unavailable (" + describe(h.cause, sink.sqlstate()) + "); retrying");
      pollfd p{stop_fd, POLLIN, 0};
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
  block_stop_signals();
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
    if (!install_signal_handlers()) {
      say("setting up signal handling failed");
      return exit_failure;
    }
    return run(o);
  } catch (const std::bad_alloc&) {
    say("out of memory");
    return exit_failure;
  }
}
