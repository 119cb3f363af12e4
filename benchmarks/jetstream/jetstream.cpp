// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-bench-jetstream: how fast replicant-jetstream drains a backlog into a three-node
// JetStream cluster, and what the stream's replicas and the window of unacknowledged publishes
// (--max-pending) cost. One run, one throwaway PostgreSQL server and one throwaway cluster of the
// test harness (tests/support/server/nats_cluster.hpp), every configuration against the same
// backlog.
//
//   1. For every configuration (replicas x max-pending) a stream, a slot and a subject prefix of
//      its own; each program runs once from now (--go-forward-only) until a seed transaction's
//      marker is in its stream, and stops: every configuration then has a checkpoint at the same
//      place.
//   2. A backlog of --transactions transactions of --rows inserted rows each is committed while
//      no program runs.
//   3. Each configuration in turn: the program starts, and is timed until the backlog's last
//      transaction's marker is in its stream; its CPU time is read; it is stopped (SIGTERM, it must
//      exit 0), and the stream must hold exactly the seed and the backlog, each message once.
//
// The baseline, in the same run and on the same backlog: replicant-tail writing its JSON lines to
// /dev/null from a slot of its own, timed until its slot has acknowledged the backlog's last
// transaction (it reports a moved position at once, so the slot follows it closely).
//
// It prints, per configuration, transactions/s and messages/s (wall clock), the consumer's CPU time
// and the three brokers' CPU time per 1,000 transactions, and throughput as a share of the
// baseline's. Any failed check makes the exit status non-zero; no time is judged.
//
// Usage: replicant-bench-jetstream [--transactions N] [--rows N] [--replicas 1,3] [--max-pending 256,4096]
//                                  [--program PATH] [--tail PATH]

#include "support/server/nats_cluster.hpp"
#include "support/server/pg_cluster.hpp"

#include "../common/child_process.hpp"
#include "../common/process_cpu.hpp"
#include "../common/program.hpp"
#include "../common/server.hpp"

#include <nats/nats.h>

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

namespace test = replicant::test;
using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

#ifdef REPLICANT_JETSTREAM_BINARY
constexpr std::string_view default_program = REPLICANT_JETSTREAM_BINARY;
#else
constexpr std::string_view default_program;
#endif
#ifdef REPLICANT_TAIL_BINARY
constexpr std::string_view default_tail = REPLICANT_TAIL_BINARY;
#else
constexpr std::string_view default_tail;
#endif

struct options {
  std::uint64_t transactions = 20'000;
  std::uint64_t rows = 4;
  std::vector<std::uint64_t> replicas{1, 3};
  std::vector<std::uint64_t> max_pending{256, 4096};
  std::string program{default_program};
  std::string tail{default_tail};
};

auto parse_list(std::string_view text, std::vector<std::uint64_t>& out) -> bool {
  out.clear();
  while (!text.empty()) {
    const auto comma = text.find(',');
    const auto item = text.substr(0, comma);
    std::uint64_t v = 0;
    if (!replicant::bench::parse_count(item, v)) return false;
    out.push_back(v);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
  }
  return !out.empty();
}

auto parse_options(int argc, char** argv, options& opt) -> bool {
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const bool has_value = i + 1 < args.size();
    std::vector<std::uint64_t> one;
    if (args[i] == "--transactions" && has_value && parse_list(args[++i], one) && one.size() == 1) {
      opt.transactions = one[0];
    } else if (args[i] == "--rows" && has_value && parse_list(args[++i], one) && one.size() == 1) {
      opt.rows = one[0];
    } else if (args[i] == "--replicas" && has_value) {
      if (!parse_list(args[++i], opt.replicas)) return false;
    } else if (args[i] == "--max-pending" && has_value) {
      if (!parse_list(args[++i], opt.max_pending)) return false;
    } else if (args[i] == "--program" && has_value) {
      opt.program = std::string{args[++i]};
    } else if (args[i] == "--tail" && has_value) {
      opt.tail = std::string{args[++i]};
    } else {
      return false;
    }
  }
  return !opt.program.empty() && !opt.tail.empty();
}

// "16/B374D848" as a number; 0 for anything else.
auto parse_lsn(std::string_view text) -> std::uint64_t {
  const auto at = replicant::parse_lsn(text);
  return at ? at->value() : 0;
}

// The cluster, through nats.c: streams made, their size and last marker read.
class broker {
 public:
  explicit broker(const std::string& urls) {
    natsOptions* opts = nullptr;
    natsStatus s = natsOptions_Create(&opts);
    if (s == NATS_OK) s = test::set_nats_servers(opts, urls);
    if (s == NATS_OK) s = natsConnection_Connect(&nc_, opts);
    natsOptions_Destroy(opts);
    if (s == NATS_OK) s = natsConnection_JetStream(&js_, nc_, nullptr);
    if (s != NATS_OK) throw std::runtime_error{"could not connect to the cluster"};
  }
  broker(const broker&) = delete;
  auto operator=(const broker&) -> broker& = delete;
  ~broker() {
    jsCtx_Destroy(js_);
    natsConnection_Destroy(nc_);
  }

  void create_stream(const std::string& name, const std::string& prefix, std::uint64_t replicas) {
    const std::string subjects = prefix + ".>";
    const char* list[] = {subjects.c_str()};
    jsStreamConfig cfg;
    jsStreamConfig_Init(&cfg);
    cfg.Name = name.c_str();
    cfg.Subjects = list;
    cfg.SubjectsLen = 1;
    cfg.Discard = js_DiscardNew;
    cfg.Replicas = static_cast<std::int64_t>(replicas);
    if (!test::add_stream_when_settled(js_, cfg, std::chrono::seconds(60))) {
      throw std::runtime_error{"could not create a stream"};
    }
  }

  // The stream's message count, or nothing.
  auto messages(const std::string& name) -> std::optional<std::uint64_t> {
    const auto state = test::stream_state_of(js_, name);
    return state ? std::optional{state->messages} : std::nullopt;
  }

  // The commit LSN of the last marker on @p subject, or 0.
  auto last_marker(const std::string& name, const std::string& subject) -> std::uint64_t {
    return replicant::test::last_marker_position(js_, name, subject);
  }

 private:
  natsConnection* nc_ = nullptr;
  jsCtx* js_ = nullptr;
};

// A program under test as a child process, its standard error appended to a log, and its standard
// output too unless it names another file.
using replicant::bench::child_process;

// How long a program may take to exit on SIGTERM before it is killed.
constexpr std::chrono::seconds stop_patience{60};

// One configuration: its stream, slot and prefix.
struct configuration {
  std::uint64_t replicas = 3;
  std::uint64_t max_pending = 4096;
  std::string stream;
  std::string slot;
  std::string prefix;
};

auto wait_for_marker(broker& b, const configuration& c, std::uint64_t past, std::chrono::seconds timeout) -> bool {
  const auto deadline = clock_type::now() + timeout;
  while (clock_type::now() < deadline) {
    if (b.last_marker(c.stream, c.prefix + ".commit") > past) return true;
    std::this_thread::sleep_for(2ms);
  }
  return false;
}

// The position slot @p slot has acknowledged, or 0.
auto confirmed(test::pg_cluster& server, const std::string& slot) -> std::uint64_t {
  return parse_lsn(
      server.scalar("SELECT coalesce((SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = '" +
                    slot + "'), '0/0')"));
}

// Waits until slot @p slot has acknowledged a position past @p past.
auto wait_for_acknowledgement(test::pg_cluster& server, const std::string& slot, std::uint64_t past,
                              std::chrono::seconds timeout) -> bool {
  const auto deadline = clock_type::now() + timeout;
  while (clock_type::now() < deadline) {
    if (confirmed(server, slot) > past) return true;
    std::this_thread::sleep_for(2ms);
  }
  return false;
}

// The CPU ticks of the cluster's three nodes together.
auto broker_ticks(const test::nats_cluster& nats) -> std::uint64_t {
  std::uint64_t sum = 0;
  for (int i = 0; i < test::nats_cluster::size; ++i) sum += replicant::bench::cpu_ticks(nats.pid(i)).value_or(0);
  return sum;
}

// Milliseconds of CPU per 1,000 of @p transactions, from clock ticks.
auto ms_per_1000(std::uint64_t ticks, std::uint64_t transactions) -> double {
  const double per_tick_ms = 1000.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
  return static_cast<double>(ticks) * per_tick_ms * 1000.0 / static_cast<double>(transactions);
}

auto run(const options& opt) -> int {
  const auto cluster_options = replicant::bench::server_options("17");
  const auto nats_binary = test::nats_server_binary();
  if (!cluster_options.binaries_present() || !nats_binary) {
    return replicant::bench::missing_part("bench-jetstream",
                                          "no PostgreSQL server binaries or no nats-server (run tools/provision)");
  }
  test::pg_cluster server{cluster_options};
  test::nats_cluster nats{*nats_binary};
  broker b{nats.urls()};
  server.create_database("bench");
  // The end-to-end benchmark's row shape (docs/performance.md, W1 to W3).
  server.sql(
      "CREATE TABLE t (id bigint PRIMARY KEY, name text, amount numeric(12,2), created_at timestamptz, flag bool); "
      "CREATE PUBLICATION bench_pub FOR TABLE t",
      "bench");
  std::printf("jetstream benchmark: PostgreSQL %d, a three-node cluster, %llu transactions of %llu rows\n",
              server.major(), static_cast<unsigned long long>(opt.transactions),
              static_cast<unsigned long long>(opt.rows));

  std::vector<configuration> configs;
  for (const auto r : opt.replicas) {
    for (const auto p : opt.max_pending) {
      const auto n = std::to_string(configs.size());
      configs.push_back(configuration{r, p, "BENCH_" + n, "bench_" + n, "bench.c" + n});
      b.create_stream(configs.back().stream, configs.back().prefix, r);
    }
  }
  const auto arguments = [&](const configuration& c) {
    return std::vector<std::string>{"--dsn",
                                    server.dsn("bench"),
                                    "--slot",
                                    c.slot,
                                    "--publication",
                                    "bench_pub",
                                    "--create-slot",
                                    "--go-forward-only",
                                    "--nats",
                                    nats.urls(),
                                    "--stream",
                                    c.stream,
                                    "--subject-prefix",
                                    c.prefix,
                                    "--max-pending",
                                    std::to_string(c.max_pending),
                                    "--max-unconfirmed",
                                    "100000"};
  };
  const auto log = server.directory() / "bench-jetstream.log";
  const std::string tail_slot = "bench_tail";
  const std::vector<std::string> tail_arguments{"--dsn",         server.dsn("bench"), "--slot",
                                                tail_slot,       "--publication",     "bench_pub",
                                                "--create-slot", "--go-forward-only"};

  // 1. A checkpoint at the same place for every configuration.
  {
    std::vector<std::unique_ptr<child_process>> running;
    for (const auto& c : configs) running.push_back(std::make_unique<child_process>(opt.program, arguments(c), log));
    child_process tail{opt.tail, tail_arguments, log, "/dev/null"};
    const auto active = [&] {
      return server.scalar("SELECT count(*) FROM pg_replication_slots WHERE active AND slot_name LIKE 'bench_%'") ==
             std::to_string(configs.size() + 1);
    };
    const auto deadline = clock_type::now() + 60s;
    while (!active() && clock_type::now() < deadline) std::this_thread::sleep_for(50ms);
    const auto before = parse_lsn(server.scalar("SELECT pg_current_wal_lsn()", "bench"));
    server.sql("INSERT INTO t VALUES (0, 'seed', 0, now(), false)", "bench");
    for (std::size_t i = 0; i < configs.size(); ++i) {
      if (!wait_for_marker(b, configs[i], before, 60s) || running[i]->stop(stop_patience) != 0) {
        std::fprintf(stderr, "bench-jetstream: a seed run failed (see %s)\n", log.c_str());
        return 1;
      }
    }
    if (!wait_for_acknowledgement(server, tail_slot, before, 60s) || tail.stop(stop_patience) != 0) {
      std::fprintf(stderr, "bench-jetstream: the baseline's seed run failed (see %s)\n", log.c_str());
      return 1;
    }
  }

  // 2. The backlog.
  const auto rows = std::to_string(opt.rows);
  std::uint64_t before_last = 0;  // a position before the backlog's last commit
  for (std::uint64_t i = 0; i < opt.transactions; ++i) {
    if (i + 1 == opt.transactions) before_last = parse_lsn(server.scalar("SELECT pg_current_wal_lsn()", "bench"));
    const auto first = std::to_string(1 + i * opt.rows);
    server.sql(
        "INSERT INTO t SELECT g, 'name-' || lpad(g::text, 16, '0'), (g % 100000) / 100.0, now(), g % 2 = 0 "
        "FROM generate_series(" +
            first + ", " + first + " + " + rows + " - 1) g",
        "bench");
  }
  const std::uint64_t expected = 2 + opt.transactions * (opt.rows + 1);  // the seed, then the backlog

  // 3. The baseline drains it, then each configuration.
  const auto n = static_cast<double>(opt.transactions);
  std::printf("%-24s %10s %12s %16s %16s %9s\n", "consumer", "tx/s", "messages/s", "consumer ms CPU", "brokers ms CPU",
              "of tail");
  std::printf("%-24s %10s %12s %16s %16s %9s\n", "", "", "", "per 1000 tx", "per 1000 tx", "");
  double baseline = 0;
  {
    child_process tail{opt.tail, tail_arguments, log, "/dev/null"};
    const auto started = clock_type::now();
    const auto cpu_before = replicant::bench::cpu_ticks(tail.pid()).value_or(0);
    const bool drained = wait_for_acknowledgement(server, tail_slot, before_last, 600s);
    const double seconds = std::chrono::duration<double>(clock_type::now() - started).count();
    const auto cpu_after = replicant::bench::cpu_ticks(tail.pid()).value_or(cpu_before);
    if (!drained || tail.stop(stop_patience) != 0) {
      std::fprintf(stderr, "bench-jetstream: the baseline did not drain the backlog (see %s)\n", log.c_str());
      return 1;
    }
    baseline = n / seconds;
    std::printf("%-24s %10.0f %12s %16.1f %16s %8.0f%%\n", "replicant-tail >/dev/null", baseline, "-",
                ms_per_1000(cpu_after - cpu_before, opt.transactions), "-", 100.0);
    std::fflush(stdout);
  }
  for (const auto& c : configs) {
    child_process p{opt.program, arguments(c), log};
    const auto started = clock_type::now();
    const auto cpu_before = replicant::bench::cpu_ticks(p.pid()).value_or(0);
    const auto brokers_before = broker_ticks(nats);
    const bool drained = wait_for_marker(b, c, before_last, 600s);
    const double seconds = std::chrono::duration<double>(clock_type::now() - started).count();
    const auto cpu_after = replicant::bench::cpu_ticks(p.pid()).value_or(cpu_before);
    const auto brokers_after = broker_ticks(nats);
    const int status = p.stop(stop_patience);
    const auto stored = b.messages(c.stream).value_or(0);
    if (!drained || status != 0 || stored != expected) {
      std::fprintf(
          stderr, "bench-jetstream: replicas %llu, max-pending %llu: drained %d, exit %d, %llu of %llu messages\n",
          static_cast<unsigned long long>(c.replicas), static_cast<unsigned long long>(c.max_pending), drained ? 1 : 0,
          status, static_cast<unsigned long long>(stored), static_cast<unsigned long long>(expected));
      return 1;
    }
    const auto name = "jetstream R" + std::to_string(c.replicas) + " pending " + std::to_string(c.max_pending);
    std::printf("%-24s %10.0f %12.0f %16.1f %16.1f %8.0f%%\n", name.c_str(), n / seconds,
                n * static_cast<double>(opt.rows + 1) / seconds, ms_per_1000(cpu_after - cpu_before, opt.transactions),
                ms_per_1000(brokers_after - brokers_before, opt.transactions), 100.0 * n / seconds / baseline);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

auto main(int argc, char** argv) -> int {
  constexpr const char* usage =
      "usage: replicant-bench-jetstream [--transactions N] [--rows N] [--replicas 1,3] [--max-pending 256,4096]\n"
      "                                 [--program PATH] [--tail PATH]\n";
  // nats.c's library-wide state goes after a run that returned (an exception leaves it to exit).
  const auto run_and_close = [](const options& opt) {
    const int status = run(opt);
    nats_Close();
    return status;
  };
  return replicant::bench::benchmark_main<options>(argc, argv, "bench-jetstream", usage, parse_options, run_and_close);
}
