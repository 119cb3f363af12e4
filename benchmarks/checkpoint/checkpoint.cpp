// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-bench-checkpoint: what the checkpoint mode costs when replicant-pg-mirror delivers
// into a PostgreSQL target: one target transaction per source transaction (`sink`), one per batch
// (`batches`), or the library writing the checkpoint after the sink, per transaction (`lib`) or
// per batch (`lib-batched`). Measured as a ratio, in one run, on one throwaway server.
//
// Each round:
//   1. creates a source database with one published table (int key, bigint, text) and, for every
//      mode, a replication slot and an empty target database. The slots exist before the backlog,
//      so every mode starts from the same position;
//   2. commits a backlog of --transactions single-row upserts on the source (over --keys keys)
//      while no consumer runs;
//   3. for every mode, in an order that rotates from round to round, starts replicant-pg-mirror on
//      its slot and times it from its start until every transaction is applied and covered by the
//      checkpoint; then stops it (SIGTERM, it must exit 0) and checks the target: the same rows as
//      the source, every transaction applied exactly once.
// It prints, per mode and round, transactions/s (wall clock) and the CPU time spent per transaction
// by the mirror and the server's processes together; then the median of each mode and its ratio to
// `sink`'s. The CPU figure barely moves when other work shares the machine, which the wall clock
// does not: quote the wall clock from a quiet machine, the CPU figure from any. Any failed check
// makes the exit status non-zero, which is what the ctest entry relies on; it never judges a time.
//
// The server is a test-harness cluster (tests/support/server/pg_cluster.hpp): PostgreSQL of
// REPLICANT_PG_MAJOR (default 17) from the provisioning cache, or REPLICANT_PG_BINDIR, with
// fsync=off unless --fsync is given. With fsync=off a commit costs what its round trips and WAL
// insertion cost; with --fsync each target commit also waits for the disk, which is what batching
// saves most of on real hardware.
//
// Usage: replicant-bench-checkpoint [--transactions N] [--rounds N] [--keys N] [--batch-size N]
//                                   [--modes sink,batches,lib,lib-batched] [--fsync] [--mirror PATH]

#include "support/server/pg_cluster.hpp"

#include "../common/child_process.hpp"
#include "../common/process_cpu.hpp"
#include "../common/program.hpp"
#include "../common/server.hpp"
#include "../common/statistics.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

namespace pg = replicant::test;
using replicant::bench::median;
using replicant::bench::parse_count;
using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

// The build's own mirror: benchmarks/CMakeLists.txt passes its path.
#ifdef REPLICANT_PG_MIRROR_BINARY
constexpr std::string_view default_mirror = REPLICANT_PG_MIRROR_BINARY;
#else
constexpr std::string_view default_mirror;
#endif

struct options {
  std::uint64_t transactions = 20'000;
  std::uint64_t rounds = 3;
  std::uint64_t keys = 5'000;
  std::uint64_t batch_size = 100;
  std::vector<std::string> modes{"sink", "batches", "lib", "lib-batched"};
  bool fsync = false;
  std::string mirror{default_mirror};
};

auto parse_modes(std::string_view text, std::vector<std::string>& out) -> bool {
  out.clear();
  while (!text.empty()) {
    const auto comma = text.find(',');
    const auto mode = text.substr(0, comma);
    if (mode != "sink" && mode != "batches" && mode != "lib" && mode != "lib-batched") return false;
    if (std::find(out.begin(), out.end(), mode) == out.end()) out.emplace_back(mode);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
  }
  return !out.empty();
}

auto parse_options(int argc, char** argv, options& opt) -> bool {
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const bool has_value = i + 1 < args.size();
    if (args[i] == "--transactions" && has_value) {
      if (!parse_count(args[++i], opt.transactions)) return false;
    } else if (args[i] == "--rounds" && has_value) {
      if (!parse_count(args[++i], opt.rounds)) return false;
    } else if (args[i] == "--keys" && has_value) {
      if (!parse_count(args[++i], opt.keys)) return false;
    } else if (args[i] == "--batch-size" && has_value) {
      if (!parse_count(args[++i], opt.batch_size)) return false;
    } else if (args[i] == "--modes" && has_value) {
      if (!parse_modes(args[++i], opt.modes)) return false;
    } else if (args[i] == "--mirror" && has_value) {
      opt.mirror = std::string{args[++i]};
    } else if (args[i] == "--fsync") {
      opt.fsync = true;
    } else {
      return false;
    }
  }
  return !opt.mirror.empty();
}

auto is_lib_mode(std::string_view mode) -> bool { return mode == "lib" || mode == "lib-batched"; }

// A name usable as an SQL identifier and a slot name: "lib-batched" -> "lib_batched".
auto ident(std::string_view mode) -> std::string {
  std::string out{mode};
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

// --- CPU time ------------------------------------------------------------------------------------

using replicant::bench::cpu_seconds_between;
using replicant::bench::cpu_ticks;
using replicant::bench::server_cpu;

// --- replicant-pg-mirror as a child process --------------------------------------------------------

using replicant::bench::child_process;

// How long the mirror may take to exit on SIGTERM before it is killed.
constexpr std::chrono::seconds stop_patience{30};

// --- one round ----------------------------------------------------------------------------------

constexpr std::string_view table_ddl = "CREATE TABLE items (id int PRIMARY KEY, v bigint NOT NULL, note text)";

// The bookkeeping tables of every mode, created up front so that polling never meets a missing one
// (the mirror and the store would create the same ones).
constexpr std::string_view bookkeeping_ddl =
    "CREATE TABLE replicant_mirror_checkpoint (slot text PRIMARY KEY, commit_lsn pg_lsn);"
    "CREATE TABLE replicant_mirror_applied (commit_lsn pg_lsn);"
    "CREATE TABLE replicant_checkpoints (slot_name text PRIMARY KEY, commit_lsn bigint NOT NULL)";

// A checksum of a table's whole content, comparable across databases.
constexpr std::string_view content_query =
    "SELECT count(*)::text || ':' || coalesce(md5(string_agg(t::text, ',' ORDER BY id)), '') FROM items t";

struct run_result {
  double seconds = 0;      // wall clock, from the mirror's start until it caught up
  double cpu_seconds = 0;  // CPU of the mirror and of the server's processes over the same span
  bool ok = false;
};

// Whether everything of the backlog is applied and covered by the checkpoint, in one query.
auto done_query(std::string_view mode, const std::string& slot, std::uint64_t transactions) -> std::string {
  const std::string all = "(SELECT count(*) FROM replicant_mirror_applied) = " + std::to_string(transactions);
  const std::string last = "(SELECT max(commit_lsn) FROM replicant_mirror_applied)";
  if (is_lib_mode(mode)) {
    return "SELECT " + all + " AND coalesce((SELECT commit_lsn FROM replicant_checkpoints WHERE slot_name = '" + slot +
           "') >= (" + last + " - '0/0'::pg_lsn)::bigint, false)";
  }
  return "SELECT " + all + " AND coalesce((SELECT commit_lsn FROM replicant_mirror_checkpoint WHERE slot = '" + slot +
         "') >= " + last + ", false)";
}

// Runs the mirror in @p mode on @p slot into @p target until it has caught up, and checks the result.
auto run_mode(pg::pg_cluster& server, const options& opt, const std::string& mode, const std::string& source,
              const std::string& target, const std::string& slot, const std::string& expected_content) -> run_result {
  std::vector<std::string> args{"--source", server.dsn(source), "--target",  server.dsn(target),  "--slot",
                                slot,       "--publication",    "bench_pub", "--go-forward-only", "--checkpoint",
                                mode};
  if (mode == "batches" || mode == "lib-batched") {
    args.insert(args.end(), {"--batch-size", std::to_string(opt.batch_size), "--batch-delay-ms", "100"});
  }
  const auto log = server.directory() / (slot + ".log");
  pg::pg_connection poll{server.dsn(target)};
  const std::string done = done_query(mode, slot, opt.transactions);

  run_result r;
  const auto server_before = server_cpu(server.postmaster_pid());
  const auto started = clock_type::now();
  child_process mirror{opt.mirror, std::move(args), log};
  bool caught_up = false;
  const auto deadline = started + 600s;
  while (clock_type::now() < deadline && mirror.running()) {
    if (poll.exec(done).value(0, 0) == "t") {
      caught_up = true;
      break;
    }
    std::this_thread::sleep_for(5ms);
  }
  r.seconds = std::chrono::duration<double>(clock_type::now() - started).count();
  if (caught_up) {
    const auto mirror_ticks = cpu_ticks(mirror.pid()).value_or(0);
    r.cpu_seconds = cpu_seconds_between(server_before, server_cpu(server.postmaster_pid())) +
                    static_cast<double>(mirror_ticks) / static_cast<double>(::sysconf(_SC_CLK_TCK));
  }
  const int status = mirror.stop(stop_patience);
  if (!caught_up) {
    std::fprintf(stderr,
                 "bench-checkpoint: %s did not catch up (exit status %d; log %s, kept with REPLICANT_PG_KEEP=1)\n",
                 mode.c_str(), mirror.status(), log.c_str());
    return r;
  }
  r.ok = status == 0;
  if (!r.ok) std::fprintf(stderr, "bench-checkpoint: %s exited with status %d on SIGTERM\n", mode.c_str(), status);

  const auto applied = poll.exec("SELECT count(*), count(DISTINCT commit_lsn) FROM replicant_mirror_applied");
  const auto want = std::to_string(opt.transactions);
  if (applied.value(0, 0) != want || applied.value(0, 1) != want) {
    std::fprintf(stderr, "bench-checkpoint: %s applied %s transactions (%s distinct), expected %s once each\n",
                 mode.c_str(), applied.value(0, 0).value_or("?").c_str(), applied.value(0, 1).value_or("?").c_str(),
                 want.c_str());
    r.ok = false;
  }
  if (poll.exec(content_query).value(0, 0) != expected_content) {
    std::fprintf(stderr, "bench-checkpoint: %s: the target's rows differ from the source's\n", mode.c_str());
    r.ok = false;
  }
  return r;
}

// Creates the source, the slots and the targets of round @p round, writes the backlog and runs
// every mode. @return the result of each mode (in opt.modes order), or nothing if a check failed.
auto run_round(pg::pg_cluster& server, const options& opt, std::uint64_t round)
    -> std::optional<std::vector<run_result>> {
  const std::string source = "bench_src_" + std::to_string(round);
  server.create_database(source);
  server.sql(table_ddl, source);
  server.sql("CREATE PUBLICATION bench_pub FOR TABLE items", source);
  std::vector<std::string> slots;
  std::vector<std::string> targets;
  for (const auto& mode : opt.modes) {
    slots.push_back("bench_" + ident(mode) + "_" + std::to_string(round));
    targets.push_back("bench_dst_" + ident(mode) + "_" + std::to_string(round));
    server.sql("SELECT pg_create_logical_replication_slot('" + slots.back() + "', 'pgoutput')", source);
    server.create_database(targets.back());
    server.sql(table_ddl, targets.back());
    server.sql(bookkeeping_ddl, targets.back());
  }

  // The backlog: one upsert per transaction. A DO block may COMMIT between statements when it is
  // not itself inside a transaction block, which saves a round trip per transaction here.
  const auto writing = clock_type::now();
  server.sql("DO $$ BEGIN FOR i IN 1.." + std::to_string(opt.transactions) + " LOOP INSERT INTO items VALUES (i % " +
                 std::to_string(opt.keys) +
                 ", i, md5(i::text)) ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v, note = EXCLUDED.note; COMMIT; "
                 "END LOOP; END $$",
             source);
  std::printf("round %llu: backlog of %llu transactions written in %.2f s\n", static_cast<unsigned long long>(round),
              static_cast<unsigned long long>(opt.transactions),
              std::chrono::duration<double>(clock_type::now() - writing).count());
  std::fflush(stdout);
  const auto expected = server.scalar(content_query, source);

  std::vector<run_result> results(opt.modes.size());
  bool ok = true;
  // Rotate the order, so that no mode always runs first (cold caches) or last.
  for (std::size_t k = 0; k < opt.modes.size(); ++k) {
    const std::size_t i = (k + round) % opt.modes.size();
    results[i] = run_mode(server, opt, opt.modes[i], source, targets[i], slots[i], expected);
    ok = ok && results[i].ok;
  }
  for (const auto& slot : slots) server.sql("SELECT pg_drop_replication_slot('" + slot + "')", source);
  if (!ok) return std::nullopt;
  return results;
}

// Per mode and round: transactions/s (wall clock) and CPU microseconds per transaction.
struct figures {
  std::vector<std::vector<double>> rates;
  std::vector<std::vector<double>> cpu_us;
};

// Runs every round, printing each mode's figures as it goes; nothing once a check failed.
auto run_rounds(pg::pg_cluster& server, const options& opt) -> std::optional<figures> {
  figures f{std::vector<std::vector<double>>(opt.modes.size()), std::vector<std::vector<double>>(opt.modes.size())};
  const auto n = static_cast<double>(opt.transactions);
  for (std::uint64_t round = 1; round <= opt.rounds; ++round) {
    const auto results = run_round(server, opt, round);
    if (!results) return std::nullopt;
    for (std::size_t i = 0; i < opt.modes.size(); ++i) {
      const auto& r = (*results)[i];
      f.rates[i].push_back(n / r.seconds);
      f.cpu_us[i].push_back(r.cpu_seconds * 1e6 / n);
      std::printf("  %-12s %8.2f s %9.0f tx/s %8.1f us CPU/tx\n", opt.modes[i].c_str(), r.seconds, f.rates[i].back(),
                  f.cpu_us[i].back());
    }
    std::fflush(stdout);
  }
  return f;
}

// The medians of every mode, and their ratios to the per-transaction mode when it ran.
auto print_summary(const options& opt, const figures& f) -> void {
  const auto base = static_cast<std::size_t>(std::find(opt.modes.begin(), opt.modes.end(), "sink") - opt.modes.begin());
  const bool has_base = base < opt.modes.size();
  const double base_rate = has_base ? median(f.rates[base]) : 0;
  const double base_cpu = has_base ? median(f.cpu_us[base]) : 0;
  std::printf("\nmedians of %llu round(s); ratios to sink (throughput: higher is better, CPU: lower is better)\n",
              static_cast<unsigned long long>(opt.rounds));
  std::printf("%-12s %10s %9s %14s %9s\n", "mode", "tx/s", "vs sink", "us CPU/tx", "vs sink");
  for (std::size_t i = 0; i < opt.modes.size(); ++i) {
    const double rate = median(f.rates[i]);
    const double cpu = median(f.cpu_us[i]);
    if (has_base) {
      std::printf("%-12s %10.0f %8.2fx %14.1f %8.2fx\n", opt.modes[i].c_str(), rate, rate / base_rate, cpu,
                  cpu / base_cpu);
    } else {
      std::printf("%-12s %10.0f %9s %14.1f %9s\n", opt.modes[i].c_str(), rate, "-", cpu, "-");
    }
  }
}

auto run(const options& opt) -> int {
  // Without a choice in the environment, the provisioning cache's PostgreSQL 17.
  const auto cluster_options = replicant::bench::server_options("17");
  if (!cluster_options.binaries_present()) {
    return replicant::bench::missing_part("bench-checkpoint", replicant::bench::no_server_binaries);
  }
  pg::pg_cluster server{cluster_options};
  if (opt.fsync) {
    server.set("fsync", "on");
    server.reload();
  }
  std::printf(
      "checkpoint benchmark: PostgreSQL %d (fsync %s), %llu single-row transactions over %llu keys, "
      "%llu round(s), batch size %llu\n",
      server.major(), opt.fsync ? "on" : "off", static_cast<unsigned long long>(opt.transactions),
      static_cast<unsigned long long>(opt.keys), static_cast<unsigned long long>(opt.rounds),
      static_cast<unsigned long long>(opt.batch_size));
  std::fflush(stdout);
  const auto f = run_rounds(server, opt);
  if (!f) {
    std::fprintf(stderr, "bench-checkpoint: a check failed\n");
    return 1;
  }
  print_summary(opt, *f);
  return 0;
}

}  // namespace

auto main(int argc, char** argv) -> int {
  constexpr const char* usage =
      "usage: replicant-bench-checkpoint [--transactions N] [--rounds N] [--keys N] [--batch-size N]\n"
      "                                  [--modes sink,batches,lib,lib-batched] [--fsync] [--mirror PATH]\n";
  return replicant::bench::benchmark_main<options>(argc, argv, "bench-checkpoint", usage, parse_options, run);
}
