// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-tail: streams the committed changes of PostgreSQL publications to stdout as JSON lines,
// one object per change, acknowledging the slot only up to what was durably written. A thin
// command line over replicant::pipeline with a library-owned checkpoint. Usage and guarantees:
// docs/tail.md, or `replicant-tail --help`.

#include "../common/running_pipeline.hpp"
#include "../common/stop_signal.hpp"
#include "failure.hpp"
#include "jsonl_sink.hpp"
#include "memory_store.hpp"
#include "options.hpp"
#include "output.hpp"
#include "probe.hpp"
#include "status.hpp"

#include <replicant/checkpoint/file_store.hpp>
#include <replicant/checkpoint/lib_owned.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/halt.hpp>
#include <replicant/pipeline.hpp>
#include <replicant/spill/none.hpp>
#include <replicant/telemetry.hpp>

#include <unistd.h>

#include <cstdio>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <utility>

namespace {

using namespace replicant::examples::tail;
using replicant::examples::running_pipeline_scope;
using replicant::examples::stop_signal;

// The checkpoint lives in a store the pipeline writes after the sink returned: the checkpoint file
// (file_checkpoint_store), or memory when there is none (memory_checkpoint_store).
template <class Store>
using tail_pipeline = replicant::pipeline<replicant::pgoutput_decoder, replicant::lib_owned_checkpoint<Store>,
                                          replicant::no_spill, jsonl_sink>;

// Ctrl-C and SIGTERM stop the running pipeline, whichever store it has.
constexpr auto stop_hook = &replicant::examples::stop_running_pipelines<tail_pipeline<replicant::file_checkpoint_store>,
                                                                        tail_pipeline<memory_checkpoint_store>>;

// Prints one line on stderr. Only fixed text, codes, LSNs, versions and counts ever reach it.
void say(const std::string& line) { std::fprintf(stderr, "replicant-tail: %s\n", line.c_str()); }

auto report(const failure& f) -> int {
  std::fprintf(stderr, "%s\n", describe(f).c_str());
  return is_refusal(f) ? exit_refused : exit_failure;
}

// Streams until a stop request, a closed output or a halt; the exit status.
template <class Store>
auto stream(const options& o, Store store, int server_version) -> int {
  using pipeline_type = tail_pipeline<Store>;
  output_stream out{STDOUT_FILENO};
  jsonl_sink sink{out, o.messages};

  // The status lines come from the pipeline's telemetry. The reporter and the dispatcher outlive
  // the pipeline (declared first), which emits from its two threads until run() returns.
  status_reporter status{server_version};
  replicant::telemetry::dispatcher events;
  events.attach([&status](const replicant::telemetry::event_record& e) {
    if (auto line = status.line_for(e, stop_signal::requested())) say(*line);
  });

  replicant::lib_owned_checkpoint<Store> policy{.store = std::move(store), .batch = std::nullopt};
  pipeline_type pipeline{sink, std::move(policy), pipeline_options_for(o), &events};
  std::error_code ec;
  {
    const running_pipeline_scope running{pipeline};  // a stop signal now stops the pipeline
    pipeline.run(ec);
  }

  const auto& halted = pipeline.last_halt();
  if (!ec || !halted) {
    say(summary_line("stopped", sink.written(), pipeline.durable_lsn()));
    return exit_ok;
  }
  // A closed output (`replicant-tail | head`) is how a reader says it has seen enough.
  if (is_closed_output(*halted)) {
    say(summary_line("the output was closed; stopped", sink.written(), pipeline.durable_lsn()));
    return exit_ok;
  }
  const int status_code = report(from_halt(*halted));
  // After a halt while streaming, what was written and acknowledged; nothing to say before that.
  if (status.sessions() > 0) say(summary_line("ended", sink.written(), pipeline.durable_lsn()));
  return status_code;
}

auto run(const options& o) -> int {
  const auto conninfo = pipeline_options_for(o).conninfo;
  // The pipeline waits out a server that is down; a command whose server cannot be reached at all
  // fails now instead.
  auto server = probe_server(conninfo, o, stop_signal::fd());
  if (!server) {
    if (server.error().code == replicant::errc::cancelled) return exit_ok;
    return report(server.error());
  }
  if (o.checkpoint_file) return stream(o, replicant::file_checkpoint_store{*o.checkpoint_file}, *server);
  return stream(o, memory_checkpoint_store{}, *server);
}

}  // namespace

auto main(int argc, char** argv) -> int {
  try {
    auto parsed =
        parse_options(std::span<const char* const>{argv + 1, static_cast<std::size_t>(argc > 0 ? argc - 1 : 0)});
    if (!parsed) return report(parsed.error());
    if (parsed->help) {
      std::fputs(usage_text.data(), stdout);
      return exit_ok;
    }
    if (!stop_signal::install(stop_hook)) {
      say("setting up signal handling failed");
      return exit_failure;
    }
    return run(*parsed);
  } catch (const std::bad_alloc&) {
    say("out of memory");
    return exit_failure;
  }
}
