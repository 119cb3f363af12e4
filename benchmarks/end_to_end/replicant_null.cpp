// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-bench-null: the replicant consumer of the end-to-end benchmark (benchmarks/end_to_end/,
// docs/performance.md). A whole replication pipeline,
//
//   replicant::pipeline<pgoutput_decoder, sink_owned_checkpoint, no_spill, null_sink>
//
// where the sink types every field of every row (field::value()) and folds it into a checksum so
// that none of the work can be optimised away, keeps its checkpoint in memory, and returns each
// transaction's commit LSN: the exactly-once contract of a real sink, minus the storage. It streams
// an existing slot from its confirmed position and stops once the durable position reaches
// --end-lsn, which is what the other consumers of the benchmark are told too.
//
// On exit it prints one line of key=value pairs on stdout (counts, the checksum, the durable
// position, its own CPU time and peak RSS from getrusage), which the harness checks against the
// workload it generated. Nothing it prints is a row value: counts, LSNs and a checksum only.
//
// Usage: replicant-bench-null --dsn DSN --slot SLOT --publication PUB --end-lsn X/Y
//                             [--low-water BYTES] [--max-delay-ms MS] [--protocol N]
//                             [--idle-seconds S]
// (--idle-seconds: stream for S seconds and stop, whatever arrives; for the idle RSS figure.)

#include <replicant/pipeline.hpp>

#include "common/cli.hpp"
#include "common/stop_signal.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <variant>

namespace {

using replicant::lsn;
using replicant::value_kind;
namespace cli = replicant::examples;

constexpr std::string_view usage =
    "usage: replicant-bench-null --dsn DSN --slot SLOT --publication PUB --end-lsn X/Y\n"
    "                            [--low-water BYTES] [--max-delay-ms MS] [--protocol N] [--idle-seconds S]\n"
    "Streams SLOT through a replicant pipeline into a sink that types every value, and stops once\n"
    "the acknowledged position reaches --end-lsn (or after --idle-seconds). Prints one line of\n"
    "counts, a checksum, its CPU time and peak RSS.\n";

struct options {
  std::string dsn;
  std::string slot;
  std::string publication;
  std::optional<lsn> end;
  std::uint32_t low_water = 0;
  std::uint32_t max_delay_ms = 5;
  std::uint32_t protocol = 0;
  std::uint32_t idle_seconds = 0;
};

// Returns the options, or nothing after printing why (never echoing a value: it may be a secret).
auto parse(std::span<const char* const> args) -> std::optional<options> {
  options o;
  cli::argument_reader reader{args};
  const auto fail = [](std::string_view what, std::string_view arg) -> std::optional<options> {
    std::fprintf(stderr, "replicant-bench-null: %.*s %s\n%.*s", static_cast<int>(what.size()), what.data(),
                 cli::printable_option_name(arg).c_str(), static_cast<int>(usage.size()), usage.data());
    return std::nullopt;
  };
  while (reader.next()) {
    const auto name = reader.name();
    if (name == "--help") {
      std::fputs(usage.data(), stdout);
      std::exit(cli::exit_ok);
    }
    const auto value = reader.take_value();
    if (!value) return fail("missing value for", reader.argument());
    const auto number = [&](std::uint32_t low, std::uint32_t high) { return cli::parse_unsigned(*value, low, high); };
    if (name == "--dsn") {
      o.dsn = *value;
    } else if (name == "--slot") {
      o.slot = *value;
    } else if (name == "--publication") {
      o.publication = *value;
    } else if (name == "--end-lsn") {
      auto at = replicant::parse_lsn(*value);
      if (!at) return fail("malformed LSN for", reader.argument());
      o.end = *at;
    } else if (name == "--low-water") {
      auto n = number(0, 1U << 30U);
      if (!n) return fail("out of range:", reader.argument());
      o.low_water = *n;
    } else if (name == "--max-delay-ms") {
      auto n = number(1, 60'000);
      if (!n) return fail("out of range:", reader.argument());
      o.max_delay_ms = *n;
    } else if (name == "--protocol") {
      auto n = number(0, 4);
      if (!n) return fail("out of range:", reader.argument());
      o.protocol = *n;
    } else if (name == "--idle-seconds") {
      auto n = number(1, 3600);
      if (!n) return fail("out of range:", reader.argument());
      o.idle_seconds = *n;
    } else {
      return fail("unknown option", reader.argument());
    }
  }
  if (o.dsn.empty() || o.slot.empty() || o.publication.empty() || (!o.end && o.idle_seconds == 0)) {
    std::fprintf(stderr,
                 "replicant-bench-null: --dsn, --slot, --publication and --end-lsn (or --idle-seconds) "
                 "are required\n%.*s",
                 static_cast<int>(usage.size()), usage.data());
    return std::nullopt;
  }
  return o;
}

// What the sink saw. Written by the applier thread only; read after run() returned.
struct tally {
  std::uint64_t transactions = 0;
  std::uint64_t rows = 0;
  std::uint64_t fields = 0;
  std::uint64_t unchanged = 0;  // unchanged TOAST columns: no value to type
  std::uint64_t int_sum = 0;    // every int64 value added up: the harness knows what to expect
  std::uint64_t checksum = 0;   // something of every other value, so no cast can be skipped
  lsn last_end{};               // where the last transaction delivered ends
};

// The sink: a real sink's contract (dedup by commit LSN, checkpoint returned on connect, the commit
// LSN returned as persisted) with memory standing in for the storage.
class null_sink {
 public:
  auto checkpoint() -> replicant::result<std::optional<lsn>> { return stored_; }

  auto handle_transaction(const replicant::transaction& t) -> replicant::result<lsn> {
    if (stored_ && t.commit_lsn() <= *stored_) return t.commit_lsn();  // seen before a reconnect
    for (const replicant::change& c : t.changes()) {
      ++tally_.rows;
      if (auto r = touch(c.record()); !r) return replicant::unexpected(r.error());
      if (auto r = touch(c.old()); !r) return replicant::unexpected(r.error());
    }
    ++tally_.transactions;
    tally_.last_end = t.end_lsn();
    stored_ = t.commit_lsn();
    return t.commit_lsn();
  }

  [[nodiscard]] auto counts() const noexcept -> const tally& { return tally_; }

 private:
  auto touch(const replicant::row& r) -> replicant::result<void> {
    for (const replicant::field f : r) {
      ++tally_.fields;
      if (f.is_unchanged()) {
        ++tally_.unchanged;
        continue;
      }
      const auto v = f.value();
      if (!v) return replicant::unexpected(v.error());
      tally_.checksum = tally_.checksum * 31U + static_cast<std::uint64_t>(v->kind());
      switch (v->kind()) {
        case value_kind::int64: tally_.int_sum += static_cast<std::uint64_t>(v->get<std::int64_t>()); break;
        case value_kind::boolean: tally_.checksum += v->get<bool>() ? 1U : 0U; break;
        case value_kind::numeric: tally_.checksum += v->get<replicant::numeric>().view().size(); break;
        case value_kind::text: tally_.checksum += v->get<replicant::text>().size(); break;
        case value_kind::timestamptz:
          tally_.checksum += static_cast<std::uint64_t>(v->get<replicant::timestamptz>().micros_since_2000());
          break;
        default: break;
      }
    }
    return {};
  }

  std::optional<lsn> stored_;
  tally tally_;
};

using null_pipeline =
    replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint, replicant::no_spill, null_sink>;

// The running pipeline, for the signal hook and the telemetry handler.
std::atomic<null_pipeline*> the_pipeline{nullptr};
// The highest position acknowledged to the server: the durable position, or an idle advance past it.
std::atomic<std::uint64_t> acknowledged_position{0};
// When the program started, and how long after that the end position was acknowledged: the time to
// drain, without the stop that follows (closing the stream and the connections).
const auto program_start = std::chrono::steady_clock::now();
std::atomic<std::int64_t> end_reached_after_us{-1};

void stop_running() noexcept {
  if (auto* p = the_pipeline.load()) p->stop();
}

auto microseconds(const timeval& t) -> long long {
  return static_cast<long long>(t.tv_sec) * 1'000'000LL + static_cast<long long>(t.tv_usec);
}

auto run(const options& o) -> int {
  replicant::pipeline_options po;
  po.conninfo = o.dsn;
  po.slot = o.slot;
  po.publications = {o.publication};
  po.go_forward_only = true;  // no checkpoint yet: stream from the slot's own position
  po.create_slot = false;     // the harness prepared it; a missing one is an error
  po.protocol_version = o.protocol;
  po.receive_low_water_bytes = o.low_water;
  po.receive_max_delay = std::chrono::milliseconds(o.max_delay_ms);
  po.max_command_retries = 0;

  null_sink sink;
  // The end is reached either by a delivered transaction (the durable position moves to its end) or,
  // when WAL with nothing published follows the last one, by an idle advance to the server's
  // keepalive position: both are checkpoint_advanced events, so watch those.
  replicant::telemetry::dispatcher events;
  if (o.end) {
    const lsn end = *o.end;
    events.attach([end](const replicant::telemetry::event_record& e) {
      if (e.name != replicant::telemetry::events::checkpoint_advanced::name) return;
      auto* p = the_pipeline.load();
      if (p == nullptr) return;
      const auto* at = e.find("commit_lsn");
      const auto* l = at ? std::get_if<lsn>(at) : nullptr;
      // Events come from two threads: keep the highest position either has seen.
      auto seen = std::max(p->durable_lsn().value(), l != nullptr ? l->value() : 0U);
      for (auto before = acknowledged_position.load();
           before < seen && !acknowledged_position.compare_exchange_weak(before, seen);) {
      }
      if (seen >= end.value()) {
        const auto us =
            std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - program_start);
        std::int64_t unset = -1;
        end_reached_after_us.compare_exchange_strong(unset, us.count());
        p->stop();
      }
    });
  }
  null_pipeline pipeline{sink, po, &events};
  the_pipeline.store(&pipeline);
  if (cli::stop_signal::requested()) pipeline.stop();

  std::jthread timer;
  if (o.idle_seconds > 0) {
    timer = std::jthread{[&pipeline, seconds = o.idle_seconds](const std::stop_token& token) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
      while (!token.stop_requested() && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      pipeline.stop();
    }};
  }

  std::error_code ec;
  pipeline.run(ec);
  if (timer.joinable()) {
    timer.request_stop();
    timer.join();
  }
  cli::stop_signal::block();
  the_pipeline.store(nullptr);

  rusage self{};
  ::getrusage(RUSAGE_SELF, &self);
  const tally& t = sink.counts();
  const lsn reached{std::max(acknowledged_position.load(), pipeline.durable_lsn().value())};
  std::printf(
      "transactions=%llu rows=%llu fields=%llu unchanged=%llu int_sum=%llu checksum=%016llx last_end=%s "
      "acknowledged=%s to_end_us=%lld user_us=%lld sys_us=%lld max_rss_kb=%ld\n",
      static_cast<unsigned long long>(t.transactions), static_cast<unsigned long long>(t.rows),
      static_cast<unsigned long long>(t.fields), static_cast<unsigned long long>(t.unchanged),
      static_cast<unsigned long long>(t.int_sum), static_cast<unsigned long long>(t.checksum),
      replicant::to_string(t.last_end).c_str(), replicant::to_string(reached).c_str(),
      static_cast<long long>(end_reached_after_us.load()), microseconds(self.ru_utime), microseconds(self.ru_stime),
      self.ru_maxrss);
  if (ec) {
    const auto& h = pipeline.last_halt();
    std::fprintf(stderr, "replicant-bench-null: halted: %s\n",
                 h ? std::string{replicant::to_string(h->reason)}.c_str() : ec.message().c_str());
    return cli::exit_failure;
  }
  if (o.end && reached < *o.end && !cli::stop_signal::requested()) {
    // Only a signal may end the run short of the end position.
    std::fprintf(stderr, "replicant-bench-null: stopped before the end position\n");
    return cli::exit_failure;
  }
  return cli::exit_ok;
}

}  // namespace

auto main(int argc, char** argv) -> int {
  try {
    const auto parsed =
        parse(std::span<const char* const>{argv + 1, static_cast<std::size_t>(argc > 0 ? argc - 1 : 0)});
    if (!parsed) return cli::exit_refused;
    if (!cli::stop_signal::install(&stop_running)) {
      std::fputs("replicant-bench-null: setting up signal handling failed\n", stderr);
      return cli::exit_failure;
    }
    return run(*parsed);
  } catch (const std::exception&) {
    std::fputs("replicant-bench-null: failed (out of memory, or an exception from the pipeline)\n", stderr);
    return cli::exit_failure;
  }
}
