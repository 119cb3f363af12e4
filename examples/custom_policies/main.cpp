// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-custom-policies: the checkpoint and spill families are open. This program streams a
// slot into a small file sink through two policies that are not the library's, each written
// against the public concept and its requirements page only:
//
//   - wal_bytes_checkpoint.hpp: the checkpoint lives in a replicant::file_checkpoint_store and is
//     written once the delivered transactions span N bytes of WAL (not N transactions), on a timer,
//     and at a stop;
//   - mmap_spill.hpp: a transaction larger than the memory budget is spilled to memory-mapped
//     temporary files.
//
// The pipeline treats them as it treats its own models. `replicant-custom-policies --help` for
// the options; tests/integration/examples/custom_policies.cpp runs it against a live server.

#include "../common/connection_probe.hpp"
#include "../common/program.hpp"
#include "../common/running_pipeline.hpp"
#include "../common/stop_signal.hpp"
#include "line_sink.hpp"
#include "mmap_spill.hpp"
#include "options.hpp"
#include "wal_bytes_checkpoint.hpp"

#include <replicant/checkpoint/file_store.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/pipeline.hpp>
#include <replicant/telemetry/telemetry.hpp>

#include <cstdio>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <variant>

namespace {

using replicant::examples::exit_failure;
using replicant::examples::exit_ok;
using replicant::examples::exit_refused;
using replicant::examples::running_pipeline_scope;
using replicant::examples::stop_signal;

using checkpoint_policy = custom_policies::wal_bytes_checkpoint<replicant::file_checkpoint_store>;

// Both policies are the user's; the decoder and the engine are the library's.
using custom_pipeline =
    replicant::pgoutput_pipeline<custom_policies::line_sink, checkpoint_policy, custom_policies::mmap_spill>;

// One line on stderr. Only fixed text, codes, LSNs and counts reach it: never a value, a name, a
// path or a connection string.
auto say(const std::string& line) -> void { std::fprintf(stderr, "replicant-custom-policies: %s\n", line.c_str()); }

auto summary(std::string_view how, const custom_policies::line_sink& sink, const custom_pipeline& pipeline)
    -> std::string {
  return std::string{how} + "; " + std::to_string(sink.transactions()) + " transactions written (" +
         std::to_string(sink.spilled()) + " spilled), acknowledged up to " +
         replicant::to_string(pipeline.durable_lsn());
}

// The LSN field @p key of @p e, if it has one.
auto lsn_field(const replicant::telemetry::event_record& e, std::string_view key) -> const replicant::lsn* {
  const auto* v = e.find(key);
  return v != nullptr ? std::get_if<replicant::lsn>(v) : nullptr;
}

// Status lines from the telemetry: where streaming starts, each checkpoint written (so the WAL-bytes
// rule can be watched at work), and reconnects.
auto status_line(const replicant::telemetry::event_record& e) -> void {
  if (e.name == "replicant.connection.slot_active") {
    const auto* at = lsn_field(e, "commit_lsn");
    say(at != nullptr && at->is_valid() ? "streaming after checkpoint " + replicant::to_string(*at)
                                        : std::string{"streaming from the slot's acknowledged position"});
  } else if (e.name == "replicant.checkpoint_store.written") {
    if (const auto* at = lsn_field(e, "commit_lsn")) say("checkpoint written at " + replicant::to_string(*at));
  } else if (e.name == "replicant.connection.disconnected" && !stop_signal::requested() &&
             e.find("reason") == nullptr) {
    say("the connection ended; reconnecting");
  }
}

auto run(const custom_policies::options& o) -> int {
  // A wrong --dsn fails at once rather than being waited out as a server that is down.
  if (!replicant::examples::probe_replication_connection(o.dsn, say)) return exit_failure;
  if (stop_signal::requested()) return exit_ok;
  auto sink = custom_policies::line_sink::open(o.output);
  if (!sink) {
    say("opening --output failed: " + sink.error().message());
    return exit_failure;
  }

  // The dispatcher outlives the pipeline (declared first), which emits until run() returns.
  replicant::telemetry::dispatcher events;
  events.attach(&status_line);

  checkpoint_policy checkpoint{.store = replicant::file_checkpoint_store{o.checkpoint_file},
                               .every_bytes = o.checkpoint_every_bytes,
                               .max_delay = o.checkpoint_delay};
  custom_policies::mmap_spill spill{.dir = o.spill_dir, .max_bytes = 0};
  custom_pipeline pipeline{*sink,
                           replicant::examples::pgoutput_options_for_replication(o),
                           std::move(checkpoint),
                           std::move(spill),
                           pipeline_options_for(o),
                           &events};
  std::error_code ec;
  {
    const running_pipeline_scope running{pipeline};  // a stop signal now stops the pipeline
    pipeline.run(ec);
  }

  const auto& halted = pipeline.last_halt();
  if (ec != replicant::errc::halted || !halted) {
    say(summary("stopped", *sink, pipeline));
    return exit_ok;
  }
  auto h = *halted;
  h.table.reset();  // a table name is the user's identifier: not printed
  say(replicant::describe(h));
  say(summary("ended", *sink, pipeline));
  return replicant::is_start_rejection(h.reason) || h.reason == replicant::halt_reason::slot_missing ? exit_refused
                                                                                                     : exit_failure;
}

}  // namespace

auto main(int argc, char** argv) -> int {
  return replicant::examples::program_main(argc, argv, custom_policies::parse_options, custom_policies::usage,
                                           &replicant::examples::stop_running_pipelines<custom_pipeline>, say, run);
}
