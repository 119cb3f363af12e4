// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-jetstream: publishes the committed changes of a PostgreSQL publication to a NATS
// JetStream stream, each change once, each transaction ended by a commit marker, with the checkpoint
// kept in the stream (docs/scale_out.md), or creates such a stream (--create-stream).

#include "../common/broker_outage.hpp"
#include "../common/program.hpp"
#include "../common/running_pipeline.hpp"
#include "../common/stop_signal.hpp"
#include "jetstream_sink.hpp"
#include "options.hpp"

#include <replicant/checkpoint/deferred.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/pipeline.hpp>

#include <nats/nats.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <system_error>

namespace {

using namespace replicant::examples::jetstream;
using replicant::examples::exit_failure;
using replicant::examples::exit_ok;
using replicant::examples::outage_clock;
using replicant::examples::stop_signal;
using namespace std::chrono_literals;

using jetstream_pipeline = replicant::pgoutput_pipeline<jetstream_sink, replicant::deferred_checkpoint>;

constexpr auto stop_hook = &replicant::examples::stop_running_pipelines<jetstream_pipeline>;

// One line on stderr: fixed text, codes, LSNs and counts only; never a URL, a name or a value.
auto say(const std::string& line) -> void { std::fprintf(stderr, "replicant-jetstream: %s\n", line.c_str()); }

auto describe(std::error_code ec) -> std::string {
  return ec.message() + " [" + ec.category().name() + ':' + std::to_string(ec.value()) + ']';
}

// One attempt at creating the stream @p cfg; @p code gets JetStream's error code, if any, and
// @p unusable a credentials or TLS file that could not be used.
auto add_stream(const options& o, jsStreamConfig& cfg, jsErrCode& code, std::optional<jetstream_errc>& unusable)
    -> natsStatus {
  natsConnection* nc = nullptr;
  jsCtx* js = nullptr;
  jsStreamInfo* info = nullptr;
  natsOptions* opts = nullptr;
  natsStatus s = natsOptions_Create(&opts);
  if (s == NATS_OK) unusable = set_connection(opts, o.nats, o.security);
  if (unusable) s = NATS_ERR;
  if (s == NATS_OK) s = natsConnection_Connect(&nc, opts);
  natsOptions_Destroy(opts);
  if (s == NATS_OK) s = natsConnection_JetStream(&js, nc, nullptr);
  if (s == NATS_OK) s = js_AddStream(&info, js, &cfg, nullptr, &code);
  jsStreamInfo_Destroy(info);
  jsCtx_Destroy(js);
  natsConnection_Destroy(nc);
  return s;
}

// Whether a failed creation may succeed if tried again: the servers are down or electing leaders,
// or the cluster has not yet met the servers the replicas need. JetStream says "insufficient
// resources" for that, as it does for more replicas than there are servers: --max-outage-s ends
// that wait.
auto creation_may_pass(jetstream_errc e, jsErrCode code) -> bool {
  return e == jetstream_errc::unavailable || code == JSInsufficientResourcesErr;
}

// --create-stream: a stream that can keep the checkpoint (limits retention, discard new). A cluster
// that is starting or electing is waited for, within --max-outage-s; creating the same stream again
// succeeds, so an attempt that timed out after the server made it is harmless.
auto create_stream(const options& o) -> int {
  const std::string subjects = o.prefix + ".>";
  const char* subject_list[] = {subjects.c_str()};
  jsStreamConfig cfg;
  jsStreamConfig_Init(&cfg);
  cfg.Name = o.stream.c_str();
  cfg.Subjects = subject_list;
  cfg.SubjectsLen = 1;
  cfg.Retention = js_LimitsPolicy;
  cfg.Discard = js_DiscardNew;
  cfg.Storage = js_FileStorage;
  cfg.Replicas = o.replicas;
  cfg.Duplicates = std::chrono::nanoseconds{o.duplicate_window}.count();
  if (o.max_bytes) cfg.MaxBytes = static_cast<std::int64_t>(*o.max_bytes);
  outage_clock outage{o.max_outage};
  for (auto delay = 100ms;; delay = std::min<std::chrono::milliseconds>(delay * 2, 2s)) {
    jsErrCode code = static_cast<jsErrCode>(0);
    std::optional<jetstream_errc> unusable;
    const natsStatus s = add_stream(o, cfg, code, unusable);
    if (s == NATS_OK) {
      say("created the stream");
      return exit_ok;
    }
    const jetstream_errc e = unusable.value_or(classify(s, code, {}, false));
    const std::string why =
        describe(make_error_code(e)) + (code != 0 ? "; JetStream error " + std::to_string(code) : std::string{});
    if (!creation_may_pass(e, code) || stop_signal::requested()) {
      say("creating the stream failed: " + why);
      return exit_failure;
    }
    if (outage.over()) {
      say("creating the stream failed for longer than --max-outage-s: " + why);
      return exit_failure;
    }
    say("the cluster cannot create the stream yet (" + why + "); retrying");
    stop_signal::sleep_for(delay);
  }
}

// Runs the pipeline until it is stopped or halts for good. Broker faults that may pass by
// themselves (no leader, no quorum, no answer) are retried while they last less than
// --max-outage-s; a transaction JetStream acknowledged starts the count again.
auto stream(const options& o) -> int {
  jetstream_sink sink{sink_settings{.servers = o.nats,
                                    .security = o.security,
                                    .stream = o.stream,
                                    .prefix = o.prefix,
                                    .ack_wait = o.ack_wait,
                                    .max_pending = static_cast<std::int64_t>(o.max_pending)}};
  outage_clock outage{o.max_outage};
  for (auto connected = sink.connect(); !connected; connected = sink.connect()) {
    if (stop_signal::requested()) return exit_ok;
    if (!is_transient(connected.error()) && connected.error() != jetstream_errc::connect_failed) {
      say("connecting to NATS failed: " + describe(connected.error()));
      return exit_failure;
    }
    if (outage.over()) {
      say("connecting to NATS failed for longer than --max-outage-s: " + describe(connected.error()));
      return exit_failure;
    }
    stop_signal::sleep_for(200ms);
  }

  auto po = replicant::examples::pipeline_options_for_replication(o.replication);
  // A restarted program can find its previous walsender still finishing for a moment.
  po.max_command_retries = 30;
  po.max_reconnect_delay = 2s;
  po.max_inflight_bytes = std::size_t{o.max_inflight_mib} << 20U;
  // The sink's own acknowledgement wait fires first; this only catches a confirmation lost for good.
  const auto confirm_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(3 * o.ack_wait + 10s);
  jetstream_pipeline pipeline{
      sink, replicant::examples::pgoutput_options_for_replication(o.replication),
      replicant::deferred_checkpoint{
          .max_unconfirmed = o.max_unconfirmed, .max_unconfirmed_bytes = 0, .confirm_timeout = confirm_timeout},
      po};
  say("started");

  const int status = replicant::examples::run_through_outages(
      pipeline,
      {.broker = "the stream",
       .max_outage = o.max_outage,
       .transient = &is_transient,
       .progress = [&sink] { return sink.counts().confirmed; },
       .fault = [](const replicant::halt& h) { return " (" + describe(h.cause) + ")"; }},
      say);

  const sink_counts c = sink.counts();
  say(std::string{status == exit_ok ? "stopped" : "ended"} + "; " + std::to_string(c.transactions) +
      " transactions published, " + std::to_string(c.changes) + " changes, " + std::to_string(c.confirmed) +
      " transactions acknowledged by JetStream, " + std::to_string(c.already_in_stream) +
      " transactions already in the stream, " + std::to_string(c.tail_skipped) +
      " changes already in the stream; acknowledged up to " + replicant::to_string(pipeline.durable_lsn()));
  return status;
}

auto run(const options& o) -> int {
  const int status = o.create_stream ? create_stream(o) : stream(o);
  nats_Close();  // the client library's threads and memory, once every connection is gone
  return status;
}

}  // namespace

auto main(int argc, char** argv) -> int {
  return replicant::examples::program_main(argc, argv, parse_options, usage, stop_hook, say, run);
}
