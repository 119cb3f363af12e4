// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-tail: streams the committed changes of PostgreSQL publications to stdout as JSON lines,
// one object per change, acknowledging the slot only up to what was durably written; with
// --snapshot, the rows the tables already hold come first, with a progress line on stderr. A thin
// command line over replicant::pipeline with a library-owned checkpoint. Usage and guarantees:
// docs/tail.md, or `replicant-tail --help`.

#include "../common/running_pipeline.hpp"
#include "../common/stop_signal.hpp"
#include "estimate.hpp"
#include "failure.hpp"
#include "jsonl_sink.hpp"
#include "memory_store.hpp"
#include "options.hpp"
#include "output.hpp"
#include "probe.hpp"
#include "progress.hpp"
#include "status.hpp"

#include <replicant/checkpoint/file_store.hpp>
#include <replicant/checkpoint/lib_owned.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/pipeline.hpp>
#include <replicant/spill/none.hpp>
#include <replicant/telemetry/telemetry.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <variant>

namespace {

using namespace replicant::examples::tail;
using replicant::examples::running_pipeline_scope;
using replicant::examples::stop_signal;

// The checkpoint lives in a store the pipeline writes after the sink returned: the checkpoint file
// (file_checkpoint_store), or memory when there is none (memory_checkpoint_store).
template <class Store>
using tail_pipeline = replicant::pgoutput_pipeline<jsonl_sink, replicant::lib_owned_checkpoint<Store>>;

// Ctrl-C and SIGTERM stop the running pipeline, whichever store it has.
constexpr auto stop_hook = &replicant::examples::stop_running_pipelines<tail_pipeline<replicant::file_checkpoint_store>,
                                                                        tail_pipeline<memory_checkpoint_store>>;

// stderr: status lines, and the snapshot's progress line (in place on a terminal). Only fixed text,
// codes, LSNs, versions, counts and rates ever reach it.
status_output& err() {
  static status_output out;
  return out;
}

void say(const std::string& line) { err().say(line); }

auto report(const failure& f) -> int {
  err().print_line(describe(f));
  return is_refusal(f) ? exit_refused : exit_failure;
}

// The value of @p key in @p e when it has type T.
template <class T>
auto value_of(const replicant::telemetry::event_record& e, std::string_view key) -> std::optional<T> {
  const auto* v = e.find(key);
  if (v == nullptr || !std::holds_alternative<T>(*v)) return std::nullopt;
  return std::get<T>(*v);
}

// Streams until a stop request, a closed output or a halt; the exit status. @p has_checkpoint:
// the store already holds a position, so no snapshot will be taken (see pipeline_options_for).
template <class Store>
auto stream(const options& o, Store store, int server_version, bool has_checkpoint) -> int {
  using pipeline_type = tail_pipeline<Store>;
  const auto pipeline_options = pipeline_options_for(o, has_checkpoint);
  output_stream out{STDOUT_FILENO};
  jsonl_sink sink{out, o.messages};

  // A snapshot's progress: the started and completed events come from the pipeline's telemetry,
  // the rows in between from the sink (the point-in-time snapshot emits no event per batch). The
  // estimate is read now, on an ordinary connection, before the slot exists.
  std::optional<progress_display> progress;
  if (o.snapshot && !has_checkpoint) {
    progress.emplace(err(), o.progress_interval,
                     estimate_snapshot(pipeline_options.conninfo, o.publications, stop_signal::fd()));
    sink.on_snapshot_rows([&progress](std::uint64_t rows) { progress->rows_written(rows); });
  }

  // The status lines come from the pipeline's telemetry. The reporter and the dispatcher outlive
  // the pipeline (declared first), which emits from its two threads until run() returns.
  status_reporter status{server_version};
  replicant::telemetry::dispatcher events;
  events.attach([&status, &progress](const replicant::telemetry::event_record& e) {
    if (progress && e.name == "replicant.snapshot.started") {
      progress->started(value_of<replicant::lsn>(e, "commit_lsn").value_or(replicant::lsn{}));
    } else if (progress && e.name == "replicant.snapshot.completed") {
      const auto rows = value_of<std::int64_t>(e, "change_count").value_or(0);
      progress->completed(rows < 0 ? 0 : static_cast<std::uint64_t>(rows),
                          value_of<std::chrono::nanoseconds>(e, "duration").value_or(std::chrono::nanoseconds{}));
    }
    if (auto line = status.line_for(e, stop_signal::requested())) say(*line);
  });

  replicant::lib_owned_checkpoint<Store> policy{.store = std::move(store), .batch = std::nullopt};
  pipeline_type pipeline{sink, pgoutput_options_for(o), std::move(policy), pipeline_options, &events};
  std::error_code ec;
  {
    const running_pipeline_scope running{pipeline};  // a stop signal now stops the pipeline
    pipeline.run(ec);
  }

  const auto& halted = pipeline.last_halt();
  const auto acknowledged = pipeline.durable_lsn();
  // A snapshot that started and did not complete cannot be resumed: say so, whatever ended it.
  const bool snapshot_cut = progress && progress->in_progress();
  const auto incomplete = [&](std::string_view how) {
    say(incomplete_snapshot_line(how, sink.snapshot_rows(), progress->estimated_rows()));
  };
  if (ec != replicant::errc::halted || !halted) {
    if (snapshot_cut) {
      incomplete("stopped during the snapshot");
    } else if (pipeline.reached_end()) {
      say(summary_line("reached --end-lsn; stopped", sink.written(), acknowledged, sink.snapshot_rows()));
    } else {
      say(summary_line("stopped", sink.written(), acknowledged, sink.snapshot_rows()));
    }
    return exit_ok;
  }
  // A closed output (`replicant-tail | head`) is how a reader says it has seen enough.
  if (is_closed_output(*halted)) {
    if (snapshot_cut) {
      incomplete("the output was closed during the snapshot; stopped");
    } else {
      say(summary_line("the output was closed; stopped", sink.written(), acknowledged, sink.snapshot_rows()));
    }
    return exit_ok;
  }
  const int status_code = report(from_halt(*halted));
  if (snapshot_cut) {
    incomplete("ended during the snapshot");
  } else if (status.sessions() > 0) {
    // After a halt while streaming, what was written and acknowledged; nothing to say before that.
    say(summary_line("ended", sink.written(), acknowledged, sink.snapshot_rows()));
  }
  return status_code;
}

// Whether the checkpoint file already holds a position for the slot. A file that cannot be read,
// or belongs to another slot, counts as none here: the pipeline reads it again first thing, and
// stops with the reason before it creates or reads anything.
auto checkpoint_exists(const replicant::file_checkpoint_store& store, const std::string& slot) -> bool {
  const auto name = replicant::slot_name::make(slot);
  if (!name) return false;
  const auto stored = store.read(*name);
  return stored && stored->has_value();
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
  if (o.checkpoint_file) {
    replicant::file_checkpoint_store store{*o.checkpoint_file};
    const bool resuming = checkpoint_exists(store, o.slot);
    return stream(o, std::move(store), *server, resuming);
  }
  return stream(o, memory_checkpoint_store{}, *server, false);
}

}  // namespace

auto main(int argc, char** argv) -> int {
  try {
    auto parsed =
        parse_options(std::span<const char* const>{argv + 1, static_cast<std::size_t>(argc > 0 ? argc - 1 : 0)});
    if (!parsed) return report(parsed.error());
    if (parsed->help) {
      std::fputs(usage().c_str(), stdout);
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
