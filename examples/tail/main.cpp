// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-tail: streams the committed changes of PostgreSQL publications to stdout as JSON lines,
// one object per change, acknowledging the slot only up to what was durably written. Usage and
// guarantees: docs/tail.md, or `replicant-tail --help`.

#include "../common/stop_signal.hpp"
#include "failure.hpp"
#include "jsonl_sink.hpp"
#include "options.hpp"
#include "output.hpp"
#include "setup.hpp"
#include "streamer.hpp"

#include <replicant/lsn.hpp>
#include <replicant/pq/replication_stream.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace {

using namespace replicant::examples::tail;
using replicant::examples::stop_signal;

// Prints one line on stderr. Only fixed text, LSNs, versions and counts ever reach it.
void say(const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); }

auto report(const failure& f) -> int {
  say(describe(f));
  return is_refusal(f) ? exit_refused : exit_failure;
}

// The start-up line: where the stream begins, on which server and protocol.
void announce(const slot_state& slot, const std::optional<replicant::lsn>& checkpoint, int server_version,
              std::uint32_t proto) {
  std::string line = "replicant-tail: ";
  line += slot.created ? "created the slot; " : "";
  line += "streaming";
  if (checkpoint) {
    line += " after checkpoint " + replicant::to_string(*checkpoint);
  } else if (slot.position) {
    line += " from " + replicant::to_string(*slot.position);
  }
  line +=
      " (PostgreSQL " + std::to_string(server_version / 10000) + ", pgoutput protocol " + std::to_string(proto) + ")";
  say(line);
}

// Connects, prepares the slot and enters streaming. A stop requested while connecting is not a
// failure: the result is then empty with no failure recorded.
auto start_streaming(const options& o, std::optional<replicant::lsn> checkpoint, std::uint32_t& proto)
    -> outcome<replicant::pq::replication_stream> {
  auto conn = open_connection(o, stop_signal::fd());
  if (!conn) return conn.error();
  auto chosen = choose_protocol(*conn, o);
  if (!chosen) return chosen.error();
  proto = *chosen;
  if (auto p = check_publications(*conn, o); !p) return p.error();
  auto slot = prepare_slot(*conn, o);
  if (!slot) return slot.error();
  auto cmd = start_command(o, proto);
  if (!cmd) return cmd.error();
  const int server_version = conn->server_version();
  auto stream = replicant::pq::replication_stream::start(std::move(*conn), *cmd);
  if (!stream) {
    return failure{.step = "starting replication",
                   .code = stream.error(),
                   .hint = detail::start_hint(conn->last_error().sqlstate),
                   .sqlstate = conn->last_error().sqlstate};
  }
  announce(*slot, checkpoint, server_version, proto);
  return std::move(*stream);
}

auto run(const options& o) -> int {
  std::optional<checkpoint_file> checkpoint;
  if (o.checkpoint_file) {
    auto opened = checkpoint_file::open(*o.checkpoint_file);
    if (!opened) return report({.step = "reading --checkpoint-file", .code = opened.error()});
    checkpoint.emplace(std::move(*opened));
  }
  const std::optional<replicant::lsn> resume_after = checkpoint ? checkpoint->stored() : std::nullopt;

  std::uint32_t proto = 0;
  auto stream = start_streaming(o, resume_after, proto);
  if (!stream) {
    if (stream.error().code == replicant::errc::cancelled) return exit_ok;
    return report(stream.error());
  }

  output_stream out{STDOUT_FILENO};
  jsonl_sink sink{out, checkpoint ? &*checkpoint : nullptr, o.messages};
  streamer session{*stream, replicant::pgoutput_protocol{.version = proto}, sink, o.status_interval, o.messages};
  const auto ended = session.run(stop_signal::fd(), [] { return stop_signal::requested(); });
  // A closed output (`replicant-tail | head`) is how a reader says it has seen enough.
  if (!ended && ended.error().code == std::errc::broken_pipe) return exit_ok;
  if (!ended) return report(ended.error());
  say("replicant-tail: stopped; " + std::to_string(sink.written()) + " transactions written, acknowledged up to " +
      replicant::to_string(session.acknowledged()));
  return exit_ok;
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
    if (!stop_signal::install()) {
      say("replicant-tail: setting up signal handling failed");
      return exit_failure;
    }
    return run(*parsed);
  } catch (const std::bad_alloc&) {
    say("replicant-tail: out of memory");
    return exit_failure;
  }
}
