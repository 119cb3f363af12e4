// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-bench-large-txn: one transaction of a million rows through a replication pipeline,
// streamed or not, held in memory or partly on disk. docs/performance.md ("Large transactions") has
// the command and the figures.
//
// Four configurations, {unstreamed, streamed} x {no_spill, disk_spill}:
//
//   unstreamed.no_spill     the server decodes the transaction only at its commit, and the pipeline
//                           holds all of it in memory (a budget large enough: --memory-budget-mib)
//   streamed.no_spill       pgoutput streaming: the server sends the transaction while it runs
//   unstreamed.disk_spill   disk_spill under the default 64 MiB budget (--spill-budget-mib)
//   streamed.disk_spill
//
// Each measurement is one transaction of --rows rows (id bigint, an 80-character text: about 100
// bytes of pgoutput Insert per row), timed from the moment COMMIT is sent until the sink has typed
// and counted every row. The consumer runs in a child process of its own (this program again, with
// --config), so that its peak RSS is that of one configuration only; the configurations are
// interleaved round by round, in an order that rotates, so that drift on the machine hits each alike.
//
// One run of a configuration:
//   1. empties the table (TRUNCATE, CHECKPOINT) and creates a fresh pgoutput slot;
//   2. starts the consumer on it and waits until the slot is active;
//   3. BEGIN, INSERT ... SELECT FROM generate_series(1, rows), COMMIT on an ordinary connection;
//   4. waits for the consumer's report: when its sink was called, when it had counted every row
//      (steady_clock, which is CLOCK_MONOTONIC on Linux and so the same clock in both processes),
//      what it counted and how much of the transaction was on disk;
//   5. reads the server's own figures for the slot (pg_stat_replication_slots: what the server
//      spilled to its disk and what it streamed) and the walsender's CPU time, then lets the
//      consumer stop. The consumer reports its peak RSS (VmHWM) and exits; its CPU time comes from
//      wait4.
// Every run is checked (row count, sum of the ids, payload bytes, one transaction, the spill
// directory empty afterwards, streamed configurations streamed by the server and unstreamed ones
// not, disk_spill configurations spilled when the transaction cannot fit in their budget) and any
// failed check makes the exit status non-zero, which is what the ctest entry relies on. No time is
// judged.
//
// Why VmHWM and not wait4's ru_maxrss: Linux carries a process's high-water mark across execve, so
// a forked child's ru_maxrss is at least the parent's RSS at the fork. VmHWM belongs to the
// address space of the exec'd program alone. Both are printed per run.
//
// The server is a test-harness cluster (tests/support/server/pg_cluster.hpp): PostgreSQL of
// REPLICANT_PG_MAJOR (default 18) from the provisioning cache, or REPLICANT_PG_BINDIR; exit 77 when
// there are none. It runs with fsync off, autovacuum off, 512 MB of shared buffers, checkpoints
// spaced out, and logical_decoding_work_mem = --work-mem (default 64MB, the server's default):
// a transaction that outgrows it is spilled to the server's disk when it is not streamed, and
// streamed when the consumer asked for streaming. Nothing forces streaming
// (debug_logical_replication_streaming stays `buffered`).
//
// Usage: replicant-bench-large-txn [--rows N] [--rounds N] [--configs a,b,...] [--work-mem SIZE]
//                                  [--memory-budget-mib N] [--spill-budget-mib N]

#include <replicant/pipeline.hpp>

#include "support/server/pg_cluster.hpp"

#include "../common/child_process.hpp"
#include "../common/process_cpu.hpp"
#include "../common/program.hpp"
#include "../common/server.hpp"
#include "../common/statistics.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace {

namespace pg = replicant::test;
using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;
using replicant::lsn;
using replicant::bench::maximum;
using replicant::bench::median;
using replicant::bench::minimum;
using replicant::bench::parse_count;

constexpr int exit_failed = 1;
constexpr int exit_usage = 2;

constexpr std::uint64_t mib = 1024U * 1024U;

// The row: a bigint key and a text of exactly this many characters.
constexpr std::uint64_t payload_chars = 80;

// --- configurations -------------------------------------------------------------------------------

struct config {
  std::string_view name;
  bool streamed;
  bool disk_spill;
};

constexpr std::array<config, 4> all_configs{{
    {"unstreamed.no_spill", false, false},
    {"streamed.no_spill", true, false},
    {"unstreamed.disk_spill", false, true},
    {"streamed.disk_spill", true, true},
}};

// The configuration every ratio is taken against.
constexpr std::string_view base_config = "unstreamed.no_spill";

auto find_config(std::string_view name) -> const config* {
  for (const auto& c : all_configs) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// --- small parsers --------------------------------------------------------------------------------

// A memory setting as PostgreSQL writes it ("64MB", "64kB", "1GB"), in bytes. Only these units:
// the value is passed to the server as it is, and the checks need to know what it means.
auto parse_pg_size(std::string_view text) -> std::optional<std::uint64_t> {
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc{} || n == 0) return std::nullopt;
  const std::string_view unit{end, static_cast<std::size_t>(text.data() + text.size() - end)};
  if (unit == "kB") return n * 1024U;
  if (unit == "MB") return n * mib;
  if (unit == "GB") return n * 1024U * mib;
  return std::nullopt;
}

// "key=value key=value ..." as printed by the consumer.
auto parse_fields(std::string_view line) -> std::map<std::string, std::string, std::less<>> {
  std::map<std::string, std::string, std::less<>> out;
  std::istringstream in{std::string{line}};
  std::string token;
  while (in >> token) {
    const auto eq = token.find('=');
    if (eq != std::string::npos) out[token.substr(0, eq)] = token.substr(eq + 1);
  }
  return out;
}

auto field_u64(const std::map<std::string, std::string, std::less<>>& f, std::string_view key)
    -> std::optional<std::uint64_t> {
  const auto it = f.find(key);
  if (it == f.end()) return std::nullopt;
  std::uint64_t v = 0;
  const auto& s = it->second;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

auto now_ns() -> std::uint64_t {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now().time_since_epoch()).count());
}

// The high-water mark of this process's resident set (VmHWM), in KiB; 0 if unreadable.
auto vm_hwm_kib() -> std::uint64_t {
  std::ifstream in{"/proc/self/status"};
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) != 0) continue;
    std::istringstream fields{line.substr(6)};
    std::uint64_t kib = 0;
    fields >> kib;
    return kib;
  }
  return 0;
}

// ==================================================================================================
// The consumer (child process)
// ==================================================================================================

struct consumer_options {
  const config* cfg = nullptr;
  std::string dsn;
  std::string slot;
  std::uint64_t rows = 0;
  std::uint64_t budget = 0;
  std::string spill_dir;
};

// What the sink saw, and when.
struct tally {
  std::uint64_t transactions = 0;
  std::uint64_t rows = 0;
  std::uint64_t id_sum = 0;
  std::uint64_t payload_bytes = 0;
  std::uint64_t spilled_bytes = 0;  // of the delivered transaction, on disk at delivery
  std::uint64_t memory_bytes = 0;   // of the delivered transaction, in memory at delivery
  std::uint64_t called_ns = 0;      // steady_clock when handle_transaction was entered
  std::uint64_t done_ns = 0;        // steady_clock when every row had been counted
};

// Types both columns of every row (the id as an integer, the payload as text) and counts them; keeps
// its checkpoint in memory. Nothing of the rows is kept, so the memory measured is the pipeline's.
class counting_sink {
 public:
  explicit counting_sink(std::uint64_t expected_rows) : expected_rows_(expected_rows) {}

  auto checkpoint() -> replicant::result<std::optional<lsn>> {
    const std::lock_guard lock{mutex_};
    return stored_;
  }

  auto handle_transaction(const replicant::transaction& t) -> replicant::result<lsn> {
    const auto called = now_ns();
    {
      const std::lock_guard lock{mutex_};
      if (stored_ && t.commit_lsn() <= *stored_) return t.commit_lsn();  // sent again after a reconnect
    }
    std::uint64_t rows = 0;
    std::uint64_t id_sum = 0;
    std::uint64_t payload_bytes = 0;
    for (const replicant::change& c : t.changes()) {
      if (c.op() != replicant::change_op::insert) return replicant::fail(replicant::errc::sink_failed);
      std::size_t column = 0;
      for (const replicant::field f : c.record()) {
        const auto v = f.value();
        if (!v) return replicant::unexpected(v.error());
        if (column == 0) {
          const auto* id = v->get_if<std::int64_t>();
          if (id == nullptr) return replicant::fail(replicant::errc::sink_failed);
          id_sum += static_cast<std::uint64_t>(*id);
        } else {
          const auto* text = v->get_if<replicant::text>();
          if (text == nullptr) return replicant::fail(replicant::errc::sink_failed);
          payload_bytes += text->size();
        }
        ++column;
      }
      ++rows;
    }
    const auto done = now_ns();
    const std::lock_guard lock{mutex_};
    tally_.transactions += 1;
    tally_.rows += rows;
    tally_.id_sum += id_sum;
    tally_.payload_bytes += payload_bytes;
    tally_.spilled_bytes = t.spilled_bytes();
    tally_.memory_bytes = t.byte_size();
    tally_.called_ns = called;
    tally_.done_ns = done;
    stored_ = t.commit_lsn();
    if (tally_.rows >= expected_rows_) changed_.notify_all();
    return t.commit_lsn();
  }

  // Waits until every expected row was counted or @p stop_waiting holds (checked on notify()).
  template <class Pred>
  auto wait(Pred stop_waiting) -> bool {
    std::unique_lock lock{mutex_};
    changed_.wait(lock, [&] { return tally_.rows >= expected_rows_ || stop_waiting(); });
    return tally_.rows >= expected_rows_;
  }

  auto notify() -> void {
    const std::lock_guard lock{mutex_};
    changed_.notify_all();
  }

  [[nodiscard]] auto counts() -> tally {
    const std::lock_guard lock{mutex_};
    return tally_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<lsn> stored_;
  std::uint64_t expected_rows_;
  tally tally_;
};

template <class SpillPolicy>
auto consume(const consumer_options& o, SpillPolicy spill) -> int {
  replicant::pipeline_options options;
  options.conninfo = o.dsn;
  options.slot = o.slot;
  options.start = replicant::start::go_forward{};
  options.create_slot = false;  // the parent made it: a missing slot is a mistake, not a default
  const replicant::pgoutput_options pg{.publications = {"bench_pub"}, .streaming = o.cfg->streamed};
  options.max_inflight_bytes = static_cast<std::size_t>(o.budget);

  counting_sink sink{o.rows};
  replicant::pgoutput_pipeline<counting_sink, replicant::sink_owned_checkpoint, SpillPolicy> pipeline{
      sink, pg, replicant::sink_owned_checkpoint{}, std::move(spill), options};
  std::error_code ec;
  std::atomic<bool> ended{false};
  std::thread runner{[&] {
    pipeline.run(ec);
    ended.store(true);
    sink.notify();
  }};

  const bool complete = sink.wait([&] { return ended.load(); });
  if (complete) {
    const auto t = sink.counts();
    std::printf(
        "done transactions=%llu rows=%llu id_sum=%llu payload_bytes=%llu spilled_bytes=%llu memory_bytes=%llu "
        "called_ns=%llu done_ns=%llu\n",
        static_cast<unsigned long long>(t.transactions), static_cast<unsigned long long>(t.rows),
        static_cast<unsigned long long>(t.id_sum), static_cast<unsigned long long>(t.payload_bytes),
        static_cast<unsigned long long>(t.spilled_bytes), static_cast<unsigned long long>(t.memory_bytes),
        static_cast<unsigned long long>(t.called_ns), static_cast<unsigned long long>(t.done_ns));
    std::fflush(stdout);
    // Stay connected until the parent has read the server's figures for this slot (the walsender's
    // CPU time in particular, which is gone once it exits): it closes our stdin when done.
    char buffer[64];
    while (true) {
      const auto n = ::read(STDIN_FILENO, buffer, sizeof buffer);
      if (n == 0 || (n < 0 && errno != EINTR)) break;
    }
  }
  pipeline.stop();
  runner.join();
  if (ec) {
    // Value-free by construction: a halt reason or an error code's message.
    std::fprintf(stderr, "bench-large-txn consumer (%.*s): the pipeline ended with: %s\n",
                 static_cast<int>(o.cfg->name.size()), o.cfg->name.data(), ec.message().c_str());
  }
  std::printf("exit vm_hwm_kib=%llu ok=%d\n", static_cast<unsigned long long>(vm_hwm_kib()), complete && !ec ? 1 : 0);
  std::fflush(stdout);
  return complete && !ec ? 0 : exit_failed;
}

auto consumer_main(const std::vector<std::string_view>& args) -> int {
  consumer_options o;
  for (std::size_t i = 0; i + 1 < args.size(); i += 2) {
    const auto name = args[i];
    const auto value = args[i + 1];
    if (name == "--config") {
      o.cfg = find_config(value);
      if (o.cfg == nullptr) return exit_usage;
    } else if (name == "--dsn") {
      o.dsn = std::string{value};
    } else if (name == "--slot") {
      o.slot = std::string{value};
    } else if (name == "--rows") {
      if (!parse_count(value, o.rows)) return exit_usage;
    } else if (name == "--budget") {
      if (!parse_count(value, o.budget)) return exit_usage;
    } else if (name == "--spill-dir") {
      o.spill_dir = std::string{value};
    } else {
      return exit_usage;
    }
  }
  if (args.size() % 2 != 0 || o.cfg == nullptr || o.dsn.empty() || o.slot.empty() || o.rows == 0 || o.budget == 0) {
    std::fprintf(stderr, "bench-large-txn: the consumer needs --config, --dsn, --slot, --rows and --budget\n");
    return exit_usage;
  }
  try {
    if (o.cfg->disk_spill) return consume(o, replicant::disk_spill{.dir = o.spill_dir});
    return consume(o, replicant::no_spill{});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench-large-txn consumer: %s\n", e.what());
    return exit_failed;
  }
}

// ==================================================================================================
// The driver (parent process)
// ==================================================================================================

struct options {
  std::uint64_t rows = 1'000'000;
  std::uint64_t rounds = 3;
  std::vector<const config*> configs{&all_configs[0], &all_configs[1], &all_configs[2], &all_configs[3]};
  std::string work_mem = "64MB";
  std::uint64_t work_mem_bytes = 64U * mib;
  std::uint64_t memory_budget = 1024U * mib;
  std::uint64_t spill_budget = 64U * mib;
};

auto parse_configs(std::string_view text, std::vector<const config*>& out) -> bool {
  out.clear();
  while (!text.empty()) {
    const auto comma = text.find(',');
    const auto* c = find_config(text.substr(0, comma));
    if (c == nullptr) return false;
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
  }
  return !out.empty();
}

auto parse_options(const std::vector<std::string_view>& args, options& opt) -> bool {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const bool has_value = i + 1 < args.size();
    std::uint64_t n = 0;
    if (args[i] == "--rows" && has_value) {
      if (!parse_count(args[++i], opt.rows)) return false;
    } else if (args[i] == "--rounds" && has_value) {
      if (!parse_count(args[++i], opt.rounds)) return false;
    } else if (args[i] == "--configs" && has_value) {
      if (!parse_configs(args[++i], opt.configs)) return false;
    } else if (args[i] == "--work-mem" && has_value) {
      opt.work_mem = std::string{args[++i]};
      const auto bytes = parse_pg_size(opt.work_mem);
      if (!bytes) return false;
      opt.work_mem_bytes = *bytes;
    } else if (args[i] == "--memory-budget-mib" && has_value) {
      if (!parse_count(args[++i], n)) return false;
      opt.memory_budget = n * mib;
    } else if (args[i] == "--spill-budget-mib" && has_value) {
      if (!parse_count(args[++i], n)) return false;
      opt.spill_budget = n * mib;
    } else {
      return false;
    }
  }
  return true;
}

// The bytes the server sends for the transaction's rows when it is not streamed: one Insert message
// per row ('I', relation id, 'N', column count, then per column 't', length and the text), each in a
// CopyData with its 25-byte XLogData header, as libpq hands it over. Streamed Inserts carry the
// transaction id as well (4 bytes more). The same figure for every configuration, so MB/s compares
// like rows/s.
auto wire_bytes(std::uint64_t rows) -> std::uint64_t {
  constexpr std::uint64_t fixed = 25 + 1 + 4 + 1 + 2 + (1 + 4) + (1 + 4 + payload_chars);
  std::uint64_t digits = 0;
  std::uint64_t width = 1;
  for (std::uint64_t low = 1; low <= rows; low *= 10, ++width) {
    const std::uint64_t high = std::min(rows, low * 10 - 1);
    digits += (high - low + 1) * width;
  }
  return rows * fixed + digits;
}

// CPU time (user + system) of process @p pid in seconds, from /proc; nothing once it is gone.
auto process_cpu_seconds(pid_t pid) -> std::optional<double> {
  const auto ticks = replicant::bench::cpu_ticks(pid);
  if (!ticks) return std::nullopt;
  return static_cast<double>(*ticks) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// A temporary directory for the spill files, removed with what it holds.
class scratch_dir {
 public:
  scratch_dir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "replicant-bench-spill.XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) {
      throw std::system_error(errno, std::generic_category(), "creating the spill directory");
    }
    path_ = tmpl;
  }
  scratch_dir(const scratch_dir&) = delete;
  auto operator=(const scratch_dir&) -> scratch_dir& = delete;
  ~scratch_dir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  [[nodiscard]] auto path() const -> const std::filesystem::path& { return path_; }

 private:
  std::filesystem::path path_;
};

// The consumer as a child process: stdin and stdout are pipes to this process, stderr is shared.
class consumer_process {
 public:
  struct exit_info {
    int status = -1;  // the exit status, or 128 + the signal
    rusage usage{};
  };

  consumer_process(const std::string& program, std::vector<std::string> args) {
    int to_child[2];
    int from_child[2];
    if (::pipe2(to_child, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
    if (::pipe2(from_child, O_CLOEXEC) != 0) {
      ::close(to_child[0]);
      ::close(to_child[1]);
      throw std::system_error(errno, std::generic_category(), "pipe");
    }
    // Goes down with the driver however it ends.
    pid_ = replicant::bench::spawn(program, std::move(args), {.in = to_child[0], .out = from_child[1]});
    ::close(to_child[0]);
    ::close(from_child[1]);
    input_ = to_child[1];
    output_ = from_child[0];
    if (pid_ < 0) {
      close_input();
      ::close(output_);
      throw std::system_error(errno, std::generic_category(), "starting the consumer");
    }
  }
  consumer_process(const consumer_process&) = delete;
  auto operator=(const consumer_process&) -> consumer_process& = delete;
  ~consumer_process() {
    close_input();
    if (output_ >= 0) ::close(output_);
    if (!exit_) {
      ::kill(pid_, SIGKILL);
      reap(0);
    }
  }

  // The next line it prints, without the newline; nothing at end of output or past @p deadline.
  auto read_line(clock_type::time_point deadline) -> std::optional<std::string> {
    while (true) {
      if (const auto nl = buffer_.find('\n'); nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_type::now()).count();
      if (left <= 0) return std::nullopt;
      pollfd p{output_, POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
      if (ready < 0 && errno != EINTR) return std::nullopt;
      if (ready <= 0) continue;
      char chunk[4096];
      const auto n = ::read(output_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return std::nullopt;
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

  // Closes its stdin: the signal to stop.
  auto close_input() -> void {
    if (input_ >= 0) ::close(input_);
    input_ = -1;
  }

  // Whether it has exited (then reaped, exit_info() set). Never blocks.
  auto exited() -> bool { return exit_ || reap(WNOHANG); }

  // Waits for it to exit until @p deadline, then kills it: its exit information.
  auto wait(clock_type::time_point deadline) -> exit_info {
    while (!exited() && clock_type::now() < deadline) std::this_thread::sleep_for(10ms);
    if (!exit_) {
      ::kill(pid_, SIGKILL);
      reap(0);
    }
    return *exit_;
  }

 private:
  auto reap(int flags) -> bool {
    int status = 0;
    rusage usage{};
    const pid_t got = ::wait4(pid_, &status, flags, &usage);
    if (got != pid_) return false;
    exit_ = exit_info{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), usage};
    return true;
  }

  pid_t pid_ = -1;
  int input_ = -1;
  int output_ = -1;
  std::string buffer_;
  std::optional<exit_info> exit_;
};

// What one run of one configuration measured.
struct run_result {
  double wall = 0;                    // s, from COMMIT sent to the last row counted
  double to_callback = 0;             // s, from COMMIT sent to the sink being called
  double insert = 0;                  // s, the INSERT statement (the transaction before its commit)
  double commit = 0;                  // s, the COMMIT statement, as the writer saw it
  double peak_rss_mib = 0;            // the consumer's VmHWM
  double maxrss_mib = 0;              // the consumer's ru_maxrss (wait4), for reference
  double consumer_cpu = 0;            // s, user + system of the consumer over its whole life (wait4)
  double walsender_cpu = 0;           // s, of the walsender, from BEGIN to the last row counted
  double walsender_behind_bytes = 0;  // WAL the walsender had not read yet when COMMIT returned
  double wal_bytes = 0;               // WAL the transaction wrote (from before BEGIN to after COMMIT)
  std::uint64_t server_spill_bytes = 0;
  std::uint64_t server_spill_txns = 0;
  std::uint64_t server_stream_bytes = 0;
  std::uint64_t server_stream_txns = 0;
  std::uint64_t client_spilled_bytes = 0;
  std::uint64_t client_memory_bytes = 0;
  bool ok = false;
};

auto seconds_between(std::uint64_t from_ns, std::uint64_t to_ns) -> double {
  return to_ns >= from_ns ? static_cast<double>(to_ns - from_ns) / 1e9 : -static_cast<double>(from_ns - to_ns) / 1e9;
}

auto fail_run(const config& c, const char* what) -> run_result {
  std::fprintf(stderr, "bench-large-txn: %.*s: %s\n", static_cast<int>(c.name.size()), c.name.data(), what);
  return run_result{};
}

constexpr std::string_view database = "bench";

auto run_config(pg::pg_cluster& server, const options& opt, const config& c, const std::string& slot,
                const std::filesystem::path& spill_dir, const std::string& self) -> run_result {
  server.sql("TRUNCATE items", database);
  server.sql("CHECKPOINT", database);
  server.sql("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')", database);

  const auto budget = c.disk_spill ? opt.spill_budget : opt.memory_budget;
  consumer_process consumer{
      self,
      {"--config", std::string{c.name}, "--dsn", server.dsn(database), "--slot", slot, "--rows",
       std::to_string(opt.rows), "--budget", std::to_string(budget), "--spill-dir", spill_dir.string()}};
  const std::string slot_query =
      "SELECT active_pid FROM pg_replication_slots WHERE slot_name = '" + slot + "' AND active";
  std::optional<pid_t> walsender;
  for (const auto until = clock_type::now() + 60s; clock_type::now() < until && !consumer.exited();) {
    const auto r = server.sql(slot_query, database);
    if (!r.empty() && r[0][0]) {
      walsender = static_cast<pid_t>(std::stol(*r[0][0]));
      break;
    }
    std::this_thread::sleep_for(20ms);
  }
  if (!walsender) return fail_run(c, "the consumer did not start streaming");

  // The transaction, on a connection of its own. The clock starts when COMMIT is sent.
  pg::pg_connection writer{server.dsn(database)};
  const auto walsender_before = process_cpu_seconds(*walsender).value_or(0);
  const auto wal_before = writer.exec("SELECT pg_current_wal_lsn()").value(0, 0);
  writer.exec("BEGIN");
  const auto insert_ns = now_ns();
  writer.exec("INSERT INTO items SELECT g, left(repeat(md5(g::text), 3), " + std::to_string(payload_chars) +
              ") FROM generate_series(1, " + std::to_string(opt.rows) + ") g");
  const auto commit_ns = now_ns();
  writer.exec("COMMIT");
  run_result r;
  r.insert = seconds_between(insert_ns, commit_ns);
  r.commit = seconds_between(commit_ns, now_ns());
  // How much WAL the walsender had still to read when the commit returned: what it lags behind the
  // writer, whatever it does with what it reads (holds, spills or streams it).
  const auto behind =
      writer.exec("SELECT pg_current_wal_lsn() - sent_lsn, pg_current_wal_lsn() - '" + wal_before.value_or("0/0") +
                  "' FROM pg_stat_replication WHERE pid = " + std::to_string(*walsender));
  if (behind.row_count() == 1 && behind.value(0, 0) && behind.value(0, 1)) {
    r.walsender_behind_bytes = std::stod(*behind.value(0, 0));
    r.wal_bytes = std::stod(*behind.value(0, 1));
  }

  // The server sends it all, the consumer counts it: generous for a slow, shared machine.
  const auto deadline = clock_type::now() + 300s + std::chrono::seconds(opt.rows / 2000);
  const auto done_line = consumer.read_line(deadline);
  if (!done_line || done_line->rfind("done ", 0) != 0) return fail_run(c, "the consumer did not report every row");
  const auto walsender_after = process_cpu_seconds(*walsender);
  const auto done = parse_fields(*done_line);

  // The server's own account of the slot. The walsender reports it as it finishes each transaction,
  // which it did before the last row reached the consumer; the wait only covers a slow write.
  constexpr std::string_view stats_columns =
      "SELECT spill_txns, spill_bytes, stream_txns, stream_bytes FROM pg_stat_replication_slots WHERE slot_name = '";
  const std::string stats_query = std::string{stats_columns} + slot + "' AND (total_txns > 0 OR stream_txns > 0)";
  pg::rows stats;
  for (const auto until = clock_type::now() + 5s; clock_type::now() < until;) {
    stats = server.sql(stats_query, database);
    if (!stats.empty()) break;
    std::this_thread::sleep_for(20ms);
  }
  consumer.close_input();
  const auto exit_line = consumer.read_line(clock_type::now() + 60s);
  const auto exited = consumer.wait(clock_type::now() + 60s);
  for (const auto until = clock_type::now() + 30s;
       clock_type::now() < until &&
       server.scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "' AND active") != "0";) {
    std::this_thread::sleep_for(20ms);
  }
  server.sql("SELECT pg_drop_replication_slot('" + slot + "')", database);

  if (!exit_line || exited.status != 0) return fail_run(c, "the consumer did not exit cleanly");
  const auto ended = parse_fields(*exit_line);
  if (stats.empty()) return fail_run(c, "pg_stat_replication_slots has no figures for the slot");
  for (std::size_t i = 0; i < 4; ++i) {
    if (!stats[0][i]) return fail_run(c, "pg_stat_replication_slots has no figures for the slot");
  }

  const auto n = opt.rows;
  const auto transactions = field_u64(done, "transactions");
  const auto rows = field_u64(done, "rows");
  const auto id_sum = field_u64(done, "id_sum");
  const auto payload = field_u64(done, "payload_bytes");
  const auto spilled = field_u64(done, "spilled_bytes");
  const auto memory = field_u64(done, "memory_bytes");
  const auto called_ns = field_u64(done, "called_ns");
  const auto done_ns = field_u64(done, "done_ns");
  const auto hwm = field_u64(ended, "vm_hwm_kib");
  if (!transactions || !rows || !id_sum || !payload || !spilled || !memory || !called_ns || !done_ns || !hwm) {
    return fail_run(c, "the consumer's report is incomplete");
  }
  if (*transactions != 1 || *rows != n || *id_sum != n * (n + 1) / 2 || *payload != n * payload_chars) {
    return fail_run(c, "the consumer did not receive exactly the transaction's rows, once");
  }

  r.wall = seconds_between(commit_ns, *done_ns);
  r.to_callback = seconds_between(commit_ns, *called_ns);
  r.peak_rss_mib = static_cast<double>(*hwm) / 1024.0;
  r.maxrss_mib = static_cast<double>(exited.usage.ru_maxrss) / 1024.0;
  const auto cpu = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
  };
  r.consumer_cpu = cpu(exited.usage.ru_utime) + cpu(exited.usage.ru_stime);
  r.walsender_cpu = walsender_after ? *walsender_after - walsender_before : 0;
  r.server_spill_txns = std::stoull(*stats[0][0]);
  r.server_spill_bytes = std::stoull(*stats[0][1]);
  r.server_stream_txns = std::stoull(*stats[0][2]);
  r.server_stream_bytes = std::stoull(*stats[0][3]);
  r.client_spilled_bytes = *spilled;
  r.client_memory_bytes = *memory;

  // The configuration must be what it says it is.
  const auto wire = wire_bytes(n);
  if (c.streamed && wire > opt.work_mem_bytes && r.server_stream_txns == 0) {
    return fail_run(c, "the transaction outgrew logical_decoding_work_mem, yet the server did not stream it");
  }
  if (!c.streamed && r.server_stream_txns != 0) return fail_run(c, "the server streamed although not asked to");
  if (c.disk_spill && wire > budget && r.client_spilled_bytes == 0) {
    return fail_run(c, "the transaction is larger than the budget, yet nothing of it was spilled");
  }
  if (!c.disk_spill && r.client_spilled_bytes != 0) return fail_run(c, "no_spill spilled");
  if (!std::filesystem::is_empty(spill_dir)) return fail_run(c, "a spill file was left behind");
  r.ok = true;
  return r;
}

auto mb(std::uint64_t bytes) -> double { return static_cast<double>(bytes) / 1e6; }

auto run_driver(const options& opt) -> int {
  // Without a choice in the environment, the provisioning cache's PostgreSQL 18.
  const auto cluster_options = replicant::bench::server_options("18");
  if (!cluster_options.binaries_present()) {
    return replicant::bench::missing_part("bench-large-txn", replicant::bench::no_server_binaries);
  }
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) {
    std::fprintf(stderr, "bench-large-txn: cannot find its own executable\n");
    return exit_failed;
  }

  pg::pg_cluster server{cluster_options};
  server.set("logical_decoding_work_mem", opt.work_mem);
  // The same server work for every run: no autovacuum or analyze after a load, no checkpoint in
  // the middle of one (each run starts with its own), the table and its index in shared buffers.
  server.set("autovacuum", "off");
  server.set("shared_buffers", "512MB");
  server.set("max_wal_size", "16GB");
  server.set("checkpoint_timeout", "1h");
  server.restart();
  server.create_database(database);
  server.sql("CREATE TABLE items (id bigint PRIMARY KEY, payload text NOT NULL)", database);
  // Inserts only: the TRUNCATE between runs happens before each slot exists anyway.
  server.sql("CREATE PUBLICATION bench_pub FOR TABLE items WITH (publish = 'insert')", database);
  const auto version = server.scalar("SHOW server_version");
  scratch_dir spill;

  const auto n = static_cast<double>(opt.rows);
  const auto wire = wire_bytes(opt.rows);
  std::printf(
      "large-transaction benchmark: PostgreSQL %s, logical_decoding_work_mem %s, one transaction of %llu rows "
      "(%.1f MB of pgoutput Inserts as CopyData), %llu round(s); budgets: no_spill %llu MiB, disk_spill %llu MiB\n",
      version.c_str(), opt.work_mem.c_str(), static_cast<unsigned long long>(opt.rows), mb(wire),
      static_cast<unsigned long long>(opt.rounds), static_cast<unsigned long long>(opt.memory_budget / mib),
      static_cast<unsigned long long>(opt.spill_budget / mib));
  // Per run: seconds from COMMIT sent to the last row counted (wall) and to the sink's call; the
  // INSERT's and the COMMIT's own durations; MB of WAL the walsender had not read when COMMIT
  // returned, and that the transaction wrote; the consumer's VmHWM and ru_maxrss in MiB; CPU seconds
  // of the consumer and of the walsender; MB spilled by the server and streamed by it; MB of the
  // delivered transaction that replicant held in memory and on disk.
  std::printf("%-22s %7s %7s %8s %8s %7s %7s %9s %7s %8s %8s %8s %7s %9s %9s %8s %9s\n", "configuration", "wall s",
              "call s", "insert s", "commit s", "ws lag", "WAL MB", "rows/s", "MB/s", "RSS MiB", "maxrss", "cons CPU",
              "ws CPU", "srv spill", "srv strm", "cli mem", "cli spill");
  std::fflush(stdout);

  std::vector<std::vector<run_result>> results(opt.configs.size());
  for (std::uint64_t round = 1; round <= opt.rounds; ++round) {
    // Rotate the order, so that no configuration always runs first (cold caches) or last.
    for (std::size_t k = 0; k < opt.configs.size(); ++k) {
      const std::size_t i = static_cast<std::size_t>((k + round - 1) % opt.configs.size());
      const auto& c = *opt.configs[i];
      std::string slot_name = "bench_" + std::string{c.name} + "_" + std::to_string(round);
      std::replace(slot_name.begin(), slot_name.end(), '.', '_');
      const auto r = run_config(server, opt, c, slot_name, spill.path(), self.string());
      if (!r.ok) {
        std::fprintf(stderr, "bench-large-txn: a check failed\n");
        return exit_failed;
      }
      results[i].push_back(r);
      std::printf(
          "%-22.*s %7.2f %7.2f %8.2f %8.3f %7.1f %7.1f %9.0f %7.1f %8.1f %8.1f %8.2f %7.2f %9.1f %9.1f %8.1f %9.1f\n",
          static_cast<int>(c.name.size()), c.name.data(), r.wall, r.to_callback, r.insert, r.commit,
          r.walsender_behind_bytes / 1e6, r.wal_bytes / 1e6, n / r.wall, mb(wire) / r.wall, r.peak_rss_mib,
          r.maxrss_mib, r.consumer_cpu, r.walsender_cpu, mb(r.server_spill_bytes), mb(r.server_stream_bytes),
          mb(r.client_memory_bytes), mb(r.client_spilled_bytes));
      std::fflush(stdout);
    }
  }

  // The summary, as a Markdown table: medians, the minimum in brackets (the maximum for rates).
  const auto of = [](const std::vector<run_result>& runs, auto member) {
    std::vector<double> v;
    for (const auto& r : runs) v.push_back(static_cast<double>(r.*member));
    return v;
  };
  const auto base_it =
      std::find_if(opt.configs.begin(), opt.configs.end(), [](const config* c) { return c->name == base_config; });
  const bool has_base = base_it != opt.configs.end();
  const auto base = static_cast<std::size_t>(base_it - opt.configs.begin());
  const double base_wall = has_base ? median(of(results[base], &run_result::wall)) : 0;
  const double base_rss = has_base ? median(of(results[base], &run_result::peak_rss_mib)) : 0;

  std::printf("\nmedian of %llu round(s) (minimum in brackets, maximum for rates); x = ratio of medians to %.*s\n\n",
              static_cast<unsigned long long>(opt.rounds), static_cast<int>(base_config.size()), base_config.data());
  std::printf(
      "| configuration | wall s | to sink call s | rows/s | MB/s | peak RSS MiB | consumer CPU s | walsender CPU s "
      "| WAL unread at commit MB | server spill MB | server stream MB | replicant spill MB | wall x | RSS x |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (std::size_t i = 0; i < opt.configs.size(); ++i) {
    const auto& runs = results[i];
    const auto wall = of(runs, &run_result::wall);
    std::vector<double> rates;
    for (const double w : wall) rates.push_back(n / w);
    const auto call = of(runs, &run_result::to_callback);
    const auto rss = of(runs, &run_result::peak_rss_mib);
    const auto cons = of(runs, &run_result::consumer_cpu);
    const auto ws = of(runs, &run_result::walsender_cpu);
    const auto name = opt.configs[i]->name;
    std::printf(
        "| %.*s | %.2f (%.2f) | %.2f (%.2f) | %.0f (%.0f) | %.1f (%.1f) | %.1f (%.1f) | %.2f (%.2f) | %.2f (%.2f) "
        "| %.1f | %.1f | %.1f | %.1f |",
        static_cast<int>(name.size()), name.data(), median(wall), minimum(wall), median(call), minimum(call),
        median(rates), maximum(rates), mb(wire) / median(wall), mb(wire) / minimum(wall), median(rss), minimum(rss),
        median(cons), minimum(cons), median(ws), minimum(ws),
        median(of(runs, &run_result::walsender_behind_bytes)) / 1e6,
        median(of(runs, &run_result::server_spill_bytes)) / 1e6,
        median(of(runs, &run_result::server_stream_bytes)) / 1e6,
        median(of(runs, &run_result::client_spilled_bytes)) / 1e6);
    if (has_base) {
      std::printf(" %.2f | %.2f |\n", median(wall) / base_wall, median(rss) / base_rss);
    } else {
      std::printf(" - | - |\n");
    }
  }
  return 0;
}

constexpr const char* usage =
    "usage: replicant-bench-large-txn [--rows N] [--rounds N] [--configs a,b,...] [--work-mem SIZE]\n"
    "                                 [--memory-budget-mib N] [--spill-budget-mib N]\n"
    "  --rows N               rows of the one transaction (default 1000000)\n"
    "  --rounds N             rounds over every configuration, interleaved (default 3)\n"
    "  --configs LIST         of unstreamed.no_spill, streamed.no_spill, unstreamed.disk_spill,\n"
    "                         streamed.disk_spill (default all four)\n"
    "  --work-mem SIZE        the server's logical_decoding_work_mem, in kB, MB or GB (default 64MB)\n"
    "  --memory-budget-mib N  max_inflight_bytes of the no_spill configurations (default 1024)\n"
    "  --spill-budget-mib N   max_inflight_bytes of the disk_spill configurations (default 64)\n"
    "Server: REPLICANT_PG_MAJOR (default 18) from the provisioning cache, or REPLICANT_PG_BINDIR.\n";

}  // namespace

auto main(int argc, char** argv) -> int {
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "--config") return consumer_main(args);
  const auto parse = [&args](int, char**, options& opt) { return parse_options(args, opt); };
  return replicant::bench::benchmark_main<options>(argc, argv, "bench-large-txn", usage, parse, run_driver);
}
