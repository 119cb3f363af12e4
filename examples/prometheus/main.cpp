// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-prometheus: runs a replication pipeline and serves its telemetry as Prometheus
// metrics on 127.0.0.1. The pattern for watching any pipeline: attach a handler to the
// telemetry::dispatcher that folds events into a prometheus-cpp registry (metrics.hpp), and let
// prometheus-cpp's exposer serve it. The sink here only counts what it receives; a real one would
// store it. Usage: docs/prometheus.md, or `replicant-prometheus --help`.

#include "../common/program.hpp"
#include "../common/running_pipeline.hpp"
#include "../common/stop_signal.hpp"
#include "metrics.hpp"
#include "options.hpp"

#include <replicant/checkpoint/sink_owned.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/model/schema_change.hpp>
#include <replicant/model/transaction.hpp>
#include <replicant/pipeline.hpp>
#include <replicant/spill/none.hpp>
#include <replicant/telemetry/telemetry.hpp>

#include <prometheus/exposer.h>

#include <poll.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <thread>
#include <variant>
#include <vector>

namespace {

using namespace replicant::examples::prometheus;
using replicant::examples::exit_failure;
using replicant::examples::exit_ok;
using replicant::examples::exit_refused;
using replicant::examples::running_pipeline_scope;
using replicant::examples::stop_signal;

// A sink that stores nothing and counts the changes it is given by operation. Its checkpoint
// lives in memory: it bridges reconnects within one run, and a new run goes forward from the
// slot's position (pipeline_options_for starts it go_forward).
class counting_sink {
 public:
  /// The optional hooks it implements, checked against its members at compile time.
  static constexpr replicant::hook hooks = replicant::hook::schema_change;

  explicit counting_sink(telemetry_metrics& metrics) noexcept : metrics_(&metrics) {}

  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return stored_; }

  auto handle_transaction(const replicant::transaction& txn) -> replicant::result<replicant::lsn> {
    if (stored_ && txn.commit_lsn() <= *stored_) return txn.commit_lsn();
    for (const replicant::change& c : txn.changes()) metrics_->count_change(c.op());
    stored_ = txn.commit_lsn();
    return txn.commit_lsn();
  }

  // Nothing is stored, so no schema change can break anything: accept them all rather than halt.
  auto handle_schema_change(const replicant::schema_change& /*change*/) noexcept -> replicant::result<void> {
    return {};
  }

 private:
  telemetry_metrics* metrics_;
  std::optional<replicant::lsn> stored_;
};

using counting_pipeline = replicant::pgoutput_pipeline<counting_sink>;

// One line on stderr. Only fixed text, codes, LSNs, ports and counts reach it.
auto say(const std::string& line) -> void {
  std::fprintf(stderr, "replicant-prometheus: %s\n", line.c_str());
  std::fflush(stderr);
}

// The exposer's settings (civetweb's options): loopback only, whatever the port; two workers, so
// that one slow client does not hold up a scrape; a client that sends nothing is dropped after
// five seconds.
auto exposer_options(std::uint16_t port) -> std::vector<std::string> {
  return {"listening_ports", "127.0.0.1:" + std::to_string(port), "num_threads", "2", "request_timeout_ms", "5000"};
}

// Blocks until a stop signal. False when waiting failed (the OS error is in errno).
auto wait_for_stop() -> bool {
  pollfd stop{stop_signal::fd(), POLLIN, 0};
  for (;;) {
    if (::poll(&stop, 1, -1) > 0) return true;
    if (errno != EINTR) return false;
  }
}

auto run(const options& o) -> int {
  // The metrics and the dispatcher outlive the pipeline (declared first), which emits from its
  // two threads until run() returns.
  telemetry_metrics metrics;

  // Listen first: a port in use fails the command before anything connects. The exposer serves
  // on threads of its own until it is destroyed, after the pipeline.
  std::optional<::prometheus::Exposer> exposer;
  try {
    exposer.emplace(exposer_options(o.port));
  } catch (const std::exception& e) {  // civetweb could not listen; its message names the port, no value
    say(std::string{"listening on 127.0.0.1 failed: "} + e.what() + " (choose another --port)");
    return exit_failure;
  }
  exposer->RegisterCollectable(metrics.registry());
  const std::vector<int> ports = exposer->GetListeningPorts();  // the port taken, also for --port 0
  say("serving http://127.0.0.1:" + std::to_string(ports.empty() ? int{o.port} : ports.front()) + "/metrics");

  replicant::telemetry::dispatcher events;
  events.attach([&metrics](const replicant::telemetry::event_record& e) { metrics.observe(e); });

  counting_sink sink{metrics};
  counting_pipeline pipeline{sink, replicant::examples::pgoutput_options_for_replication(o), pipeline_options_for(o),
                             &events};
  std::optional<replicant::halt> halted;
  metrics.set_running(true);
  std::thread streaming{[&] {
    std::error_code ec;
    {
      const running_pipeline_scope running{pipeline};  // a stop signal now stops the pipeline
      pipeline.run(ec);
    }
    const bool halted_now = ec == replicant::errc::halted && pipeline.last_halt();  // last_halt() says why
    // The halt is counted before the gauge falls, so a scrape that sees replicant_up at 0 sees why.
    if (halted_now) metrics.record_halt(pipeline.last_halt()->reason);
    metrics.set_running(false);
    if (halted_now) {
      halted = pipeline.last_halt();
      halted->table.reset();  // a table name is the user's identifier: not printed
      say(replicant::describe(*halted));
      say("still serving the metrics; stop with Ctrl-C or SIGTERM");
    }
  }};

  // The exposer answers scrapes on its own threads; this one waits for a stop signal.
  const bool waited = wait_for_stop();
  const std::error_code wait_error{waited ? 0 : errno, std::system_category()};
  pipeline.stop();
  streaming.join();
  if (!waited) {
    say("waiting for a stop signal failed: " + wait_error.message());
    return exit_failure;
  }
  if (halted) return replicant::is_start_rejection(halted->reason) ? exit_refused : exit_failure;
  say("stopped; acknowledged up to " + replicant::to_string(pipeline.durable_lsn()));
  return exit_ok;
}

}  // namespace

auto main(int argc, char** argv) -> int {
  return replicant::examples::program_main(argc, argv, parse_options, usage,
                                           &replicant::examples::stop_running_pipelines<counting_pipeline>, say, run);
}
