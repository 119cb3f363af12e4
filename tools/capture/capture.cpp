// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-capture: records what a walsender sends for one START_REPLICATION command into a
// capture file (format: tests/support/wire/capture_file.hpp, tests/data/pgoutput/README.md).
//
//   replicant-capture --dsn 'host=... dbname=shop'
//       --command "START_REPLICATION SLOT s LOGICAL 0/0 (proto_version '4', publication_names 'pub')"
//       --until 0/1A2B3C8 --out shop.capture [--scenario shop] [--timeout 60]
//
// The slot must exist. Recording stops once the server reports (in a keepalive) that it has
// decoded past --until; use pg_current_wal_insert_lsn() taken after the workload, then write any
// later WAL (e.g. commit a transaction on an unpublished table) so that the walsender passes it.
// Exit status: 0 recorded, 1 failed (the reason on stderr, value-free), 2 bad usage.
//
//   replicant-capture --summary FILE...
//
// prints each capture's header and its sequence of message types (`k` keepalive, then pgoutput's
// type letters, repeats counted: `B R I*500 C`), which is how two recordings are compared.
// It prints no value.

#include "capture_session.hpp"

#include <replicant/core/lsn.hpp>
#include <replicant/wire/framing.hpp>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <variant>

namespace {

constexpr std::string_view usage =
    "usage: replicant-capture --dsn DSN --command START_REPLICATION... --until LSN --out FILE\n"
    "                         [--scenario NAME] [--timeout SECONDS]\n"
    "       replicant-capture --summary FILE...\n";

auto bad_usage(std::string_view why) -> int {
  std::fprintf(stderr, "replicant-capture: %.*s\n%.*s", static_cast<int>(why.size()), why.data(),
               static_cast<int>(usage.size()), usage.data());
  return 2;
}

// The message types of a capture, repeats counted: "k B R I*3 C k".
auto type_sequence(const replicant::test::capture& c) -> std::string {
  std::string out;
  char previous = 0;
  std::size_t repeats = 0;
  const auto flush = [&] {
    if (repeats == 0) return;
    if (!out.empty()) out += ' ';
    out += previous;
    if (repeats > 1) out += '*' + std::to_string(repeats);
  };
  for (const auto& record : c.records) {
    const auto frame = replicant::parse_copy_data(record);
    char type = '?';
    if (frame) {
      if (const auto* w = std::get_if<replicant::xlog_data>(&*frame)) {
        if (!w->data.empty()) type = static_cast<char>(w->data[0]);
      } else {
        type = 'k';
      }
    }
    if (type != previous) {
      flush();
      previous = type;
      repeats = 0;
    }
    ++repeats;
  }
  flush();
  return out;
}

auto summarize(int argc, char** argv) -> int {
  int status = 0;
  for (int i = 2; i < argc; ++i) {
    try {
      const auto c = replicant::test::read_capture(argv[i]);
      const auto& h = c.header;
      std::printf("%s: scenario %s, server_version_num %d, options (%s), %zu records, end %s\n%s\n", argv[i],
                  h.scenario.c_str(), h.server_version_num, h.options.c_str(), c.records.size(),
                  replicant::to_string(h.end_lsn).c_str(), type_sequence(c).c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "replicant-capture: %s\n", e.what());
      status = 1;
    }
  }
  return status;
}

}  // namespace

auto main(int argc, char** argv) -> int {
  if (argc >= 2 && std::string_view{argv[1]} == "--summary") return summarize(argc, argv);
  replicant::tools::capture_request request;
  std::string out_path;
  bool have_until = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::fputs(usage.data(), stdout);
      return 0;
    }
    if (i + 1 == argc) return bad_usage("missing value after an option");
    const std::string value = argv[++i];
    if (flag == "--dsn") {
      request.dsn = value;
    } else if (flag == "--command") {
      request.command = value;
    } else if (flag == "--until") {
      const auto at = replicant::parse_lsn(value);
      if (!at) return bad_usage("--until is not an LSN (like 0/1A2B3C8)");
      request.until = *at;
      have_until = true;
    } else if (flag == "--out") {
      out_path = value;
    } else if (flag == "--scenario") {
      request.scenario = value;
    } else if (flag == "--timeout") {
      const int seconds = std::atoi(value.c_str());
      if (seconds <= 0) return bad_usage("--timeout must be a positive number of seconds");
      request.timeout = std::chrono::seconds(seconds);
    } else {
      return bad_usage("unknown option");
    }
  }
  if (request.dsn.empty() || request.command.empty() || !have_until || out_path.empty()) {
    return bad_usage("--dsn, --command, --until and --out are required");
  }
  if (request.scenario.empty()) request.scenario = "unnamed";

  try {
    std::string sqlstate;
    auto captured = replicant::tools::record(request, &sqlstate);
    if (!captured) {
      std::fprintf(stderr, "replicant-capture: %s%s%s\n", captured.error().message().c_str(),
                   sqlstate.empty() ? "" : ", SQLSTATE ", sqlstate.c_str());
      return 1;
    }
    replicant::test::write_capture(out_path, *captured);
    std::fprintf(stderr, "replicant-capture: %zu records (server_version_num %d) written to %s\n",
                 captured->records.size(), captured->header.server_version_num, out_path.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "replicant-capture: %s\n", e.what());
    return 1;
  }
  return 0;
}
