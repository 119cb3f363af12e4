// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-bench-snapshot: how fast the point-in-time snapshot reads a table, against psql's
// `\copy (SELECT ...) TO /dev/null` on the same table, in the same run, on one throwaway server.
//
// Setup: a test-harness cluster (tests/support/server/pg_cluster.hpp), one database, and per
// workload a table loaded with generate_series, vacuumed and analysed (so that both readers find
// hint bits set and the visibility map complete), in a publication of its own:
//
//   narrow  --rows rows (default 1,000,000) of about 100 bytes of COPY text: bigint key, int,
//           numeric(12,2), text, timestamptz, bool, float8, and a text that is NULL in a third of
//           the rows;
//   wide    --wide-rows rows (default 100,000; 0 leaves it out) of about 1 KB: bigint key, a
//           960-character text, a text[] and a small jsonb.
//
// Each round runs both contenders on each workload, in an order that alternates from round to
// round, after one untimed warm-up run of each:
//
//   replicant  a whole replication pipeline (pgoutput_decoder, lib_owned_checkpoint with the
//              checkpoint in memory, no_spill) with `start::point_in_time_snapshot`: it creates a slot
//              exporting its snapshot, imports it on a second connection, reads the table with
//              COPY and hands every row to a null sink that types every field (field::value())
//              and folds it into a checksum. Timed from run() until the snapshot_completed
//              telemetry event, which is when the consistent point has been handed to the sink
//              and written to the store: slot creation and the import included. The slot is
//              dropped after each run;
//   psql       `psql -X -d DSN -c "\copy (SELECT <the same columns> FROM ONLY public.<table>) TO
//              '/dev/null'"`, the psql of the server's own bindir. Timed from fork to exit:
//              process start and connection included.
//
// It prints per run and contender the wall time, rows/s, MB/s (of the table's COPY text, measured
// once with psql), the client's CPU time (this process's for replicant, psql's) and the server's
// (every server process, over the run); then per workload the median and the minimum of each, and
// replicant's throughput as a ratio to psql's: of the medians, of the minima, and the median of
// the per-round ratios. Every run is checked: replicant must deliver exactly the table's rows with
// the expected sum of the keys, psql must report `COPY <rows>`. A failed check makes the exit
// status non-zero; no time is ever judged.
//
// Server: REPLICANT_PG_MAJOR (default 15, the one version whose provisioned bindir has a psql) or
// REPLICANT_PG_BINDIR, with `fsync=off` (nothing is written during the runs anyway) and
// shared_buffers raised to 1 GB so that both readers find the table in the server's cache.
//
// Usage: replicant-bench-snapshot [--rows N] [--wide-rows N] [--rounds N] [--batch-rows N]
//                                 [--only replicant|psql] [--psql PATH]
// (--only runs one contender once per workload, without warm-up: for a profiler.)

#include "support/server/pg_cluster.hpp"

#include "../common/child_process.hpp"
#include "../common/process_cpu.hpp"
#include "../common/program.hpp"
#include "../common/server.hpp"
#include "../common/statistics.hpp"

#include <replicant/checkpoint/lib_owned.hpp>
#include <replicant/checkpoint/store.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/pipeline.hpp>
#include <replicant/snapshot/batch.hpp>
#include <replicant/spill/none.hpp>
#include <replicant/telemetry/telemetry.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace {

namespace pg = replicant::test;
using clock_type = std::chrono::steady_clock;
using replicant::bench::median;
using replicant::bench::minimum;
using replicant::bench::parse_count;

struct options {
  std::uint64_t rows = 1'000'000;
  std::uint64_t wide_rows = 100'000;
  std::uint64_t rounds = 5;
  std::uint64_t batch_rows = 1000;
  std::string only;  // empty: both contenders, timed rounds
  std::string psql;  // empty: the server bindir's
};

auto parse_options(int argc, char** argv, options& opt) -> bool {
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const bool has_value = i + 1 < args.size();
    if (args[i] == "--rows" && has_value) {
      if (!parse_count(args[++i], opt.rows)) return false;
    } else if (args[i] == "--wide-rows" && has_value) {
      if (!parse_count(args[++i], opt.wide_rows, true)) return false;
    } else if (args[i] == "--rounds" && has_value) {
      if (!parse_count(args[++i], opt.rounds)) return false;
    } else if (args[i] == "--batch-rows" && has_value) {
      if (!parse_count(args[++i], opt.batch_rows)) return false;
    } else if (args[i] == "--only" && has_value) {
      opt.only = std::string{args[++i]};
      if (opt.only != "replicant" && opt.only != "psql") return false;
    } else if (args[i] == "--psql" && has_value) {
      opt.psql = std::string{args[++i]};
    } else {
      return false;
    }
  }
  return true;
}

// --- CPU time ------------------------------------------------------------------------------------

auto seconds_of(const timeval& t) -> double {
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
}

// This process's CPU time (user + system, every thread) so far.
auto own_cpu_seconds() -> double {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return seconds_of(u.ru_utime) + seconds_of(u.ru_stime);
}

using replicant::bench::cpu_seconds_between;
using replicant::bench::cpu_ticks;
using replicant::bench::server_cpu;

// --- workloads ----------------------------------------------------------------------------------

struct workload {
  std::string name;              // also the table's name and its publication's suffix
  std::uint64_t rows = 0;        // rows loaded (ids 1..rows)
  std::string ddl;               // CREATE TABLE
  std::string load;              // INSERT ... SELECT over generate_series(1, rows) AS i
  std::string select_list;       // the columns, as replicant's COPY names them
  std::uint64_t copy_bytes = 0;  // the table's COPY text, measured with psql
};

auto narrow_workload(std::uint64_t rows) -> workload {
  workload w;
  w.name = "narrow";
  w.rows = rows;
  w.ddl =
      "CREATE TABLE narrow (id bigint PRIMARY KEY, qty int NOT NULL, price numeric(12,2) NOT NULL, name text NOT NULL, "
      "created timestamptz NOT NULL, active bool NOT NULL, score float8 NOT NULL, note text)";
  w.load =
      "INSERT INTO narrow SELECT i, i % 1000, (i % 1000000) / 100.0, 'n-' || left(md5(i::text), 22), "
      "timestamptz '2024-01-01 00:00:00+00' + i * interval '1.000123 second', i % 2 = 0, sin(i), "
      "CASE WHEN i % 3 = 0 THEN NULL ELSE 'note ' || (i % 997) END FROM generate_series(1, " +
      std::to_string(rows) + ") AS i";
  w.select_list = R"("id", "qty", "price", "name", "created", "active", "score", "note")";
  return w;
}

auto wide_workload(std::uint64_t rows) -> workload {
  workload w;
  w.name = "wide";
  w.rows = rows;
  w.ddl = "CREATE TABLE wide (id bigint PRIMARY KEY, payload text NOT NULL, tags text[] NOT NULL, doc jsonb NOT NULL)";
  w.load =
      "INSERT INTO wide SELECT i, repeat(md5(i::text), 30), ARRAY['t' || (i % 7), 'u' || (i % 11), 'v'], "
      "jsonb_build_object('k', i, 'even', i % 2 = 0, 'name', 'w' || (i % 13)) FROM generate_series(1, " +
      std::to_string(rows) + ") AS i";
  w.select_list = R"("id", "payload", "tags", "doc")";
  return w;
}

auto copy_query(const workload& w) -> std::string {
  return "SELECT " + w.select_list + " FROM ONLY \"public\".\"" + w.name + "\"";
}

// --- the replicant contender ----------------------------------------------------------------------

// The checkpoint, in memory: the benchmark measures the snapshot, not a store.
class memory_store {
 public:
  [[nodiscard]] auto read(const replicant::slot_name& /*slot*/) const noexcept
      -> replicant::result<std::optional<replicant::lsn>> {
    return stored_;
  }
  [[nodiscard]] auto write(const replicant::slot_name& /*slot*/, replicant::lsn at) noexcept
      -> replicant::result<void> {
    stored_ = at;
    return {};
  }

 private:
  std::optional<replicant::lsn> stored_;
};

// What the null sink saw.
struct tally {
  std::uint64_t rows = 0;
  std::uint64_t fields = 0;
  std::uint64_t id_sum = 0;    // the first column of every row: 1 + 2 + ... + rows
  std::uint64_t checksum = 0;  // something of every value, so that no cast can be skipped
  std::uint64_t batches = 0;
  bool completed = false;
};

// Types every field of every snapshot row, as a real sink would before storing it, and keeps
// nothing but a tally.
class null_sink {
 public:
  auto handle_snapshot(const replicant::snapshot_batch& batch, const replicant::snapshot_context& /*ctx*/)
      -> replicant::result<void> {
    ++tally_.batches;
    for (const replicant::change& c : batch) {
      ++tally_.rows;
      bool first = true;
      for (const replicant::field f : c.record()) {
        ++tally_.fields;
        const auto v = f.value();
        if (!v) return replicant::unexpected(v.error());
        tally_.checksum = tally_.checksum * 31U + static_cast<std::uint64_t>(v->kind());
        switch (v->kind()) {
          case replicant::value_kind::int64:
            if (first) tally_.id_sum += static_cast<std::uint64_t>(v->get<std::int64_t>());
            break;
          case replicant::value_kind::boolean: tally_.checksum += v->get<bool>() ? 1U : 0U; break;
          case replicant::value_kind::numeric: tally_.checksum += v->get<replicant::numeric>().view().size(); break;
          case replicant::value_kind::text: tally_.checksum += v->get<replicant::text>().size(); break;
          case replicant::value_kind::float64: tally_.checksum += v->get<double>() > 0 ? 1U : 0U; break;
          case replicant::value_kind::timestamptz:
            tally_.checksum += static_cast<std::uint64_t>(v->get<replicant::timestamptz>().micros_since_2000());
            break;
          case replicant::value_kind::array: tally_.checksum += v->get<replicant::array>().size(); break;
          case replicant::value_kind::json: tally_.checksum += v->get<replicant::json>().view().size(); break;
          default: break;
        }
        first = false;
      }
    }
    return {};
  }

  auto handle_snapshot_complete(replicant::lsn /*at*/) -> replicant::result<void> {
    tally_.completed = true;
    return {};
  }

  // Nothing is streamed: the pipeline is stopped as soon as the snapshot is complete.
  auto handle_transaction(const replicant::transaction& /*t*/) -> replicant::result<void> { return {}; }

  [[nodiscard]] auto counts() const noexcept -> const tally& { return tally_; }

 private:
  tally tally_;
};

using snapshot_pipeline = replicant::pgoutput_pipeline<null_sink, replicant::lib_owned_checkpoint<memory_store>>;

struct run_result {
  double seconds = 0;
  double setup_seconds = 0;  // replicant: from run() to the snapshot_started event (connect, checks, slot)
  double client_cpu = 0;
  double server_cpu = 0;
  bool ok = false;
};

auto expected_id_sum(std::uint64_t rows) -> std::uint64_t { return rows * (rows + 1) / 2; }

auto run_replicant(pg::pg_cluster& server, const options& opt, const workload& w, const std::string& db,
                   const std::string& slot) -> run_result {
  null_sink sink;
  replicant::pipeline_options po;
  po.conninfo = server.dsn(db);
  po.slot = slot;
  po.start = replicant::start::point_in_time_snapshot{.batch_rows = static_cast<std::size_t>(opt.batch_rows)};
  po.create_slot = true;

  // The end of the measurement: the snapshot_completed event, emitted once the consistent point is
  // the checkpoint. The figures are taken there, then the pipeline is told to stop.
  replicant::telemetry::dispatcher events;
  std::atomic<snapshot_pipeline*> running{nullptr};
  clock_type::time_point started_at{};
  clock_type::time_point completed_at{};
  double cpu_at_completion = 0;
  std::map<pid_t, std::uint64_t> server_at_completion;
  const pid_t postmaster = server.postmaster_pid();
  events.attach([&](const replicant::telemetry::event_record& e) {
    if (e.name == "replicant.snapshot.started") started_at = clock_type::now();
    if (e.name != "replicant.snapshot.completed") return;
    completed_at = clock_type::now();
    cpu_at_completion = own_cpu_seconds();
    server_at_completion = server_cpu(postmaster);
    if (auto* p = running.load()) p->stop();
  });

  run_result r;
  snapshot_pipeline pipeline{sink, replicant::pgoutput_options{.publications = {"pub_" + w.name}},
                             replicant::lib_owned_checkpoint<memory_store>{}, po, &events};
  running.store(&pipeline);
  const auto server_before = server_cpu(postmaster);
  const double cpu_before = own_cpu_seconds();
  const auto started = clock_type::now();
  std::error_code ec;
  pipeline.run(ec);
  running.store(nullptr);
  const auto& t = sink.counts();
  if (ec || completed_at == clock_type::time_point{} || !t.completed) {
    std::fprintf(stderr, "bench-snapshot: %s: the replicant run ended without a complete snapshot (%s)\n",
                 w.name.c_str(), ec ? ec.message().c_str() : "no error");
    return r;
  }
  r.seconds = std::chrono::duration<double>(completed_at - started).count();
  r.setup_seconds = std::chrono::duration<double>(started_at - started).count();
  r.client_cpu = cpu_at_completion - cpu_before;
  r.server_cpu = cpu_seconds_between(server_before, server_at_completion);
  r.ok = t.rows == w.rows && t.id_sum == expected_id_sum(w.rows) && t.fields > 0;
  if (!r.ok) {
    std::fprintf(stderr, "bench-snapshot: %s: replicant delivered %llu rows (id sum %llu), expected %llu (%llu)\n",
                 w.name.c_str(), static_cast<unsigned long long>(t.rows), static_cast<unsigned long long>(t.id_sum),
                 static_cast<unsigned long long>(w.rows), static_cast<unsigned long long>(expected_id_sum(w.rows)));
  }
  server.sql("SELECT pg_drop_replication_slot('" + slot + "')", db);
  return r;
}

// --- the psql contender ---------------------------------------------------------------------------

struct psql_output {
  int status = -1;
  std::string out;
  double cpu_seconds = 0;
  double seconds = 0;
  double server_cpu = 0;
};

// Runs psql with @p args, stdout into a pipe (which it reads), stderr passed through; times it
// from fork to exit and samples the server's CPU just before psql exits: a backend that ends with
// its connection would otherwise vanish from the sample. Reading psql's stdout to EOF is the
// signal: psql closes it only when it exits.
auto run_psql(const std::string& psql, const std::vector<std::string>& args, pid_t postmaster) -> psql_output {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe");

  psql_output r;
  const auto sample = [postmaster] {
    return postmaster > 0 ? server_cpu(postmaster) : std::map<pid_t, std::uint64_t>{};
  };
  const auto server_before = sample();
  const auto started = clock_type::now();
  const pid_t pid = replicant::bench::spawn(psql, args, {.out = out[1]});
  ::close(out[1]);
  if (pid < 0) {
    ::close(out[0]);
    throw std::system_error(errno, std::generic_category(), "fork");
  }
  // psql prints `COPY <n>` when the copy is done, before it disconnects: sample the server then.
  char chunk[4096];
  for (;;) {
    const ssize_t n = ::read(out[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    r.out.append(chunk, static_cast<std::size_t>(n));
    if (r.out.find('\n') != std::string::npos && r.server_cpu == 0) {
      r.server_cpu = cpu_seconds_between(server_before, sample());
    }
  }
  ::close(out[0]);
  int status = 0;
  rusage usage{};
  ::wait4(pid, &status, 0, &usage);
  r.seconds = std::chrono::duration<double>(clock_type::now() - started).count();
  r.cpu_seconds = seconds_of(usage.ru_utime) + seconds_of(usage.ru_stime);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

auto copy_command(const workload& w, std::string_view to) -> std::string {
  return "\\copy (" + copy_query(w) + ") TO '" + std::string{to} + "'";
}

auto run_psql_copy(pg::pg_cluster& server, const options& opt, const workload& w, const std::string& db) -> run_result {
  run_result r;
  const auto out =
      run_psql(opt.psql, {"-X", "-d", server.dsn(db), "-c", copy_command(w, "/dev/null")}, server.postmaster_pid());
  r.seconds = out.seconds;
  r.client_cpu = out.cpu_seconds;
  r.server_cpu = out.server_cpu;
  r.ok = out.status == 0 && out.out == "COPY " + std::to_string(w.rows) + "\n";
  if (!r.ok) {
    std::fprintf(stderr, "bench-snapshot: %s: psql exited %d, printing %zu bytes, not `COPY %llu`\n", w.name.c_str(),
                 out.status, out.out.size(), static_cast<unsigned long long>(w.rows));
  }
  return r;
}

// The size of the table's COPY text: psql copies it into a file once.
auto measure_copy_bytes(pg::pg_cluster& server, const options& opt, const workload& w, const std::string& db)
    -> std::uint64_t {
  const auto file = server.directory() / (w.name + ".copy");
  const auto out =
      run_psql(opt.psql, {"-X", "-d", server.dsn(db), "-c", copy_command(w, file.string())}, server.postmaster_pid());
  if (out.status != 0) throw std::runtime_error{"psql could not copy the table into a file"};
  const auto bytes = std::filesystem::file_size(file);
  std::filesystem::remove(file);
  return bytes;
}

// The version psql reports, e.g. "15.14", or an empty string.
auto psql_version(const std::string& psql) -> std::string {
  const auto out = run_psql(psql, {"--version"}, 0);
  static const std::regex version{R"(([0-9]+(\.[0-9]+)?))"};
  std::smatch m;
  return out.status == 0 && std::regex_search(out.out, m, version) ? m[1].str() : std::string{};
}

// --- reporting -------------------------------------------------------------------------------------

struct series {
  std::vector<double> seconds;
  std::vector<double> client_cpu;
  std::vector<double> server_cpu;
};

auto print_run(const char* who, const workload& w, const run_result& r) -> void {
  const double mb = static_cast<double>(w.copy_bytes) / 1e6;
  std::printf("  %-9s %-7s %8.3f s %10.0f rows/s %8.1f MB/s   CPU client %6.2f s, server %6.2f s", who, w.name.c_str(),
              r.seconds, static_cast<double>(w.rows) / r.seconds, mb / r.seconds, r.client_cpu, r.server_cpu);
  if (r.setup_seconds > 0) std::printf("   (%.3f s to the snapshot's start)", r.setup_seconds);
  std::printf("\n");
  std::fflush(stdout);
}

auto print_summary(const workload& w, const series& rep, const series& ps, std::uint64_t rounds) -> void {
  const auto rows = static_cast<double>(w.rows);
  const double mb = static_cast<double>(w.copy_bytes) / 1e6;
  std::printf("\n%s: %llu rows, %.1f MB of COPY text (%.0f bytes/row); %llu round(s)\n", w.name.c_str(),
              static_cast<unsigned long long>(w.rows), mb, static_cast<double>(w.copy_bytes) / rows,
              static_cast<unsigned long long>(rounds));
  std::printf("  %-9s %12s %12s %10s %10s %12s %12s\n", "", "rows/s med", "rows/s max", "MB/s med", "wall min",
              "client CPU", "server CPU");
  for (const auto& [who, s] : {std::pair<const char*, const series*>{"replicant", &rep}, {"psql", &ps}}) {
    const double med = median(s->seconds);
    const double best = minimum(s->seconds);
    std::printf("  %-9s %12.0f %12.0f %10.1f %9.3fs %11.2fs %11.2fs\n", who, rows / med, rows / best, mb / med, best,
                median(s->client_cpu), median(s->server_cpu));
  }
  std::vector<double> per_round;
  for (std::size_t i = 0; i < rep.seconds.size() && i < ps.seconds.size(); ++i) {
    per_round.push_back(ps.seconds[i] / rep.seconds[i]);
  }
  std::printf("  replicant / psql throughput: %.3f (medians), %.3f (minima), %.3f (median of per-round ratios)\n",
              median(ps.seconds) / median(rep.seconds), minimum(ps.seconds) / minimum(rep.seconds), median(per_round));
  std::fflush(stdout);
}

auto load(pg::pg_cluster& server, workload& w, const std::string& db, const options& opt) -> void {
  const auto started = clock_type::now();
  server.sql(w.ddl, db);
  server.sql(w.load, db);
  server.sql("VACUUM (FREEZE, ANALYZE) " + w.name, db);
  server.sql("CREATE PUBLICATION pub_" + w.name + " FOR TABLE " + w.name, db);
  w.copy_bytes = measure_copy_bytes(server, opt, w, db);
  std::printf("%s: %llu rows loaded, %.1f MB of COPY text, in %.1f s\n", w.name.c_str(),
              static_cast<unsigned long long>(w.rows), static_cast<double>(w.copy_bytes) / 1e6,
              std::chrono::duration<double>(clock_type::now() - started).count());
  std::fflush(stdout);
}

// Names a fresh slot for each replicant run: a point-in-time snapshot starts with the slot's creation.
class slot_names {
 public:
  auto next() -> std::string { return "bench_snapshot_" + std::to_string(++count_); }

 private:
  std::uint64_t count_ = 0;
};

// --only: one contender, once per workload, without a warm-up (for a profiler). false when a check
// failed.
auto run_only(pg::pg_cluster& server, const options& opt, const std::vector<workload>& workloads, const std::string& db,
              slot_names& slots) -> bool {
  bool ok = true;
  for (const auto& w : workloads) {
    const auto r =
        opt.only == "replicant" ? run_replicant(server, opt, w, db, slots.next()) : run_psql_copy(server, opt, w, db);
    ok = ok && r.ok;
    print_run(opt.only.c_str(), w, r);
  }
  return ok;
}

// One untimed run of each contender on @p w, then the timed rounds, alternating which goes first,
// then the summary. false when a check failed.
auto compare(pg::pg_cluster& server, const options& opt, const workload& w, const std::string& db, slot_names& slots)
    -> bool {
  // One untimed run of each: the table in the server's buffers, the code paged in.
  std::printf("%s: warm-up\n", w.name.c_str());
  bool ok = run_replicant(server, opt, w, db, slots.next()).ok;
  ok = run_psql_copy(server, opt, w, db).ok && ok;
  series rep;
  series ps;
  for (std::uint64_t round = 1; round <= opt.rounds && ok; ++round) {
    std::printf("round %llu\n", static_cast<unsigned long long>(round));
    // Alternate which goes first, so that neither always follows the other.
    for (int k = 0; k < 2 && ok; ++k) {
      const bool replicant_turn = (k == 0) == (round % 2 == 1);
      const auto r =
          replicant_turn ? run_replicant(server, opt, w, db, slots.next()) : run_psql_copy(server, opt, w, db);
      ok = ok && r.ok;
      if (!r.ok) break;
      print_run(replicant_turn ? "replicant" : "psql", w, r);
      series& s = replicant_turn ? rep : ps;
      s.seconds.push_back(r.seconds);
      s.client_cpu.push_back(r.client_cpu);
      s.server_cpu.push_back(r.server_cpu);
    }
  }
  if (ok) print_summary(w, rep, ps, opt.rounds);
  return ok;
}

// Gives @p server the buffers to hold the tables, and says which server and psql are compared.
auto prepare(pg::pg_cluster& server, const options& opt) -> void {
  server.set("shared_buffers", "1GB");
  server.restart();
  const auto server_version = server.scalar("SHOW server_version");
  const auto client_version = psql_version(opt.psql);
  std::printf("snapshot benchmark: PostgreSQL %s, psql %s, %llu round(s), %llu rows per batch\n",
              server_version.c_str(), client_version.c_str(), static_cast<unsigned long long>(opt.rounds),
              static_cast<unsigned long long>(opt.batch_rows));
  if (client_version.empty() || server_version.rfind(client_version.substr(0, client_version.find('.')), 0) != 0) {
    std::printf("note: psql's major version differs from the server's\n");
  }
  std::fflush(stdout);
}

auto run(options& opt) -> int {
  // Without a choice in the environment, PostgreSQL 15: its provisioned bindir has a psql.
  const auto cluster_options = replicant::bench::server_options("15");
  if (!cluster_options.binaries_present()) {
    return replicant::bench::missing_part("bench-snapshot", replicant::bench::no_server_binaries);
  }
  if (opt.psql.empty()) opt.psql = (cluster_options.bindir / "psql").string();
  if (::access(opt.psql.c_str(), X_OK) != 0) {
    return replicant::bench::missing_part(
        "bench-snapshot",
        "no psql next to the server binaries; the comparison needs the psql of the server's version (pass --psql "
        "PATH, or use REPLICANT_PG_MAJOR=15)");
  }
  pg::pg_cluster server{cluster_options};
  prepare(server, opt);
  const std::string db = "bench_snapshot";
  server.create_database(db);
  std::vector<workload> workloads{narrow_workload(opt.rows)};
  if (opt.wide_rows > 0) workloads.push_back(wide_workload(opt.wide_rows));
  for (auto& w : workloads) load(server, w, db, opt);

  slot_names slots;
  if (!opt.only.empty()) return run_only(server, opt, workloads, db, slots) ? 0 : 1;
  for (const auto& w : workloads) {
    if (!compare(server, opt, w, db, slots)) {
      std::fprintf(stderr, "bench-snapshot: a check failed\n");
      return 1;
    }
  }
  return 0;
}

}  // namespace

auto main(int argc, char** argv) -> int {
  constexpr const char* usage =
      "usage: replicant-bench-snapshot [--rows N] [--wide-rows N] [--rounds N] [--batch-rows N]\n"
      "                                [--only replicant|psql] [--psql PATH]\n";
  return replicant::bench::benchmark_main<options>(argc, argv, "bench-snapshot", usage, parse_options, run);
}
