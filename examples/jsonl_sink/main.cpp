// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-jsonl-sink: appends the committed changes of PostgreSQL publications to a file as JSON
// lines, fsynced per transaction, with the checkpoint kept by the library in a checkpoint file
// (replicant::lib_owned_checkpoint<replicant::file_checkpoint_store>). The pattern for every sink
// that cannot store a checkpoint atomically with its data: at least once, never a gap. Usage and
// guarantees: docs/jsonl_sink.md, or `replicant-jsonl-sink --help`.

#include "../common/connection_probe.hpp"
#include "../common/program.hpp"
#include "../common/running_pipeline.hpp"
#include "../common/stop_signal.hpp"
#include "file_sink.hpp"
#include "options.hpp"

#include <replicant/checkpoint/file_store.hpp>
#include <replicant/checkpoint/lib_owned.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/pipeline.hpp>
#include <replicant/spill/none.hpp>
#include <replicant/telemetry/telemetry.hpp>

#include <unistd.h>

#include <cstdio>
#include <new>
#include <span>
#include <string>
#include <system_error>
#include <utility>
#include <variant>

namespace {

using namespace replicant::examples::jsonl;
using replicant::examples::exit_failure;
using replicant::examples::exit_ok;
using replicant::examples::exit_refused;
using replicant::examples::running_pipeline_scope;
using replicant::examples::stop_signal;

// The sink writes the lines; the library writes the checkpoint file after the sink returned.
using jsonl_pipeline =
    replicant::pgoutput_pipeline<jsonl_file_sink, replicant::lib_owned_checkpoint<replicant::file_checkpoint_store>>;

// One line on stderr. Only fixed text, codes, LSNs and counts reach it: never a value, a name, a
// path or a connection string.
auto say(const std::string& line) -> void { std::fprintf(stderr, "replicant-jsonl-sink: %s\n", line.c_str()); }

auto summary(std::string_view how, const jsonl_file_sink& sink, const jsonl_pipeline& pipeline) -> std::string {
  return std::string{how} + "; " + std::to_string(sink.written()) + " transactions written, acknowledged up to " +
         replicant::to_string(pipeline.durable_lsn());
}

// Status lines from the pipeline's telemetry: where streaming starts, and reconnects.
auto status_line(const replicant::telemetry::event_record& e) -> void {
  if (e.name == "replicant.connection.slot_active") {
    const auto* at = e.find("commit_lsn");
    if (at != nullptr && std::holds_alternative<replicant::lsn>(*at) && std::get<replicant::lsn>(*at).is_valid()) {
      say("streaming after checkpoint " + replicant::to_string(std::get<replicant::lsn>(*at)));
    } else {
      say("streaming from the slot's acknowledged position");
    }
  } else if (e.name == "replicant.connection.disconnected" && !stop_signal::requested() &&
             e.find("reason") == nullptr) {
    say("the connection ended; reconnecting");
  }
}

auto run(const options& o) -> int {
  // A wrong --dsn fails at once rather than being waited out as a server that is down.
  if (!replicant::examples::probe_replication_connection(o.dsn, say)) return exit_failure;
  if (stop_signal::requested()) return exit_ok;
  auto opened = open_output(o.output);
  if (!opened) {
    say("opening --output failed: " + opened.error().message());
    return exit_failure;
  }
  if (opened->cut > 0) say("cut an interrupted transaction (" + std::to_string(opened->cut) + " bytes) off --output");
  replicant::examples::tail::output_stream out{opened->fd};
  jsonl_file_sink sink{out};

  // The dispatcher outlives the pipeline (declared first), which emits until run() returns.
  replicant::telemetry::dispatcher events;
  events.attach(&status_line);

  replicant::lib_owned_checkpoint<replicant::file_checkpoint_store> policy{
      .store = replicant::file_checkpoint_store{o.checkpoint_file}, .batch = o.batching};
  jsonl_pipeline pipeline{sink, replicant::examples::pgoutput_options_for_replication(o), std::move(policy),
                          replicant::examples::pipeline_options_for_replication(o), &events};
  std::error_code ec;
  {
    const running_pipeline_scope running{pipeline};  // a stop signal now stops the pipeline
    pipeline.run(ec);
  }
  ::close(opened->fd);

  const auto& halted = pipeline.last_halt();
  if (ec != replicant::errc::halted || !halted) {
    say(summary("stopped", sink, pipeline));
    return exit_ok;
  }
  auto h = *halted;
  h.table.reset();  // a table name is the user's identifier: not printed
  say(replicant::describe(h));
  say(summary("ended", sink, pipeline));
  return replicant::is_start_rejection(h.reason) || h.reason == replicant::halt_reason::slot_missing ? exit_refused
                                                                                                     : exit_failure;
}

}  // namespace

auto main(int argc, char** argv) -> int {
  return replicant::examples::program_main(argc, argv, parse_options, usage,
                                           &replicant::examples::stop_running_pipelines<jsonl_pipeline>, say, run);
}
