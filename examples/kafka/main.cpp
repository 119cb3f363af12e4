// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-kafka: writes the committed changes of a PostgreSQL publication to Kafka, each source
// transaction as one Kafka transaction with its checkpoint record, the checkpoint kept in a
// compacted topic (docs/scale_out.md).

#include "../common/broker_outage.hpp"
#include "../common/program.hpp"
#include "../common/running_pipeline.hpp"
#include "kafka_sink.hpp"
#include "options.hpp"

#include <replicant/checkpoint/sink_owned.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/pipeline.hpp>

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace {

using namespace replicant::examples::kafka;
using replicant::examples::exit_ok;
using namespace std::chrono_literals;

using kafka_pipeline = replicant::pgoutput_pipeline<kafka_sink>;

constexpr auto stop_hook = &replicant::examples::stop_running_pipelines<kafka_pipeline>;

// One line on stderr: fixed text, codes, LSNs and counts only; never a broker, a name or a value.
auto say(const std::string& line) -> void { std::fprintf(stderr, "replicant-kafka: %s\n", line.c_str()); }

// librdkafka's name of the sink's last broker error, e.g. "_TIMED_OUT".
auto broker_code(const kafka_sink& sink) -> std::string {
  const auto code = sink.last_broker_error();
  return code == RD_KAFKA_RESP_ERR_NO_ERROR ? std::string{}
                                            : std::string{" (librdkafka "} + rd_kafka_err2name(code) + ")";
}

// Runs the pipeline until it is stopped or halts for good. Faults that may pass by themselves (no
// answer, no leader, no coordinator, a transaction the broker aborted) are retried while they last
// less than --max-outage-s; a committed transaction starts the count again.
auto stream(const options& o) -> int {
  kafka_sink sink{sink_settings{.brokers = o.brokers,
                                .topic = o.topic,
                                .checkpoint_topic = o.checkpoint_topic,
                                .checkpoint_key = o.replication.slot,
                                .transactional_id = o.transactional_id,
                                .request_timeout = o.request_timeout,
                                .transaction_timeout = o.transaction_timeout,
                                .properties = o.properties}};

  auto po = replicant::examples::pipeline_options_for_replication(o.replication);
  // A restarted program can find its previous walsender still finishing for a moment.
  po.max_command_retries = 30;
  po.max_reconnect_delay = 2s;
  po.max_inflight_bytes = std::size_t{o.max_inflight_mib} << 20U;
  kafka_pipeline pipeline{sink, replicant::examples::pgoutput_options_for_replication(o.replication),
                          replicant::sink_owned_checkpoint{}, po};
  say("started");

  const int status = replicant::examples::run_through_outages(
      pipeline,
      {.broker = "the Kafka cluster",
       .max_outage = o.max_outage,
       .transient = &is_transient,
       .progress = [&sink] { return sink.counts().committed; },
       .fault = [&sink](const replicant::halt& /*h*/) { return broker_code(sink); },
       .detail = [&sink] { return broker_code(sink); }},
      say);

  const sink_counts c = sink.counts();
  say(std::string{status == exit_ok ? "stopped" : "ended"} + "; " + std::to_string(c.committed) +
      " transactions committed to Kafka, " + std::to_string(c.changes) + " change records, " +
      std::to_string(c.already_in_topic) + " transactions already in the topic, " + std::to_string(c.failed) +
      " Kafka transactions failed; acknowledged up to " + replicant::to_string(pipeline.durable_lsn()));
  return status;
}

}  // namespace

auto main(int argc, char** argv) -> int {
  return replicant::examples::program_main(argc, argv, parse_options, usage, stop_hook, say, stream);
}
