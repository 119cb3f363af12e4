// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-bench-null: the replicant consumer of the end-to-end benchmark (benchmarks/end_to_end/,
// docs/performance.md). A whole replication pipeline,
//
//   replicant::pipeline<pgoutput_decoder, sink_owned_checkpoint, no_spill or disk_spill, null_sink>
//
// where the sink types every field of every row (field::value()) and folds it into a checksum so
// that none of the work can be optimised away, counts the unchanged TOAST columns (which have no
// value to type), keeps its checkpoint in memory, and returns each transaction's commit LSN: the
// exactly-once contract of a real sink, minus the storage. It streams an existing slot from its
// confirmed position and stops once the durable position reaches --end-lsn, which is what the other
// consumers of the benchmark are told too.
//
// With --latency-seconds it measures commit-to-sink latency instead: for every transaction, the
// time its handle_transaction call began minus the commit timestamp the server put in its Commit
// message. Both are read from the same machine's real-time clock (the server is on this machine),
// so the difference is the whole path: the commit's WAL flush, the walsender's wake-up, decoding on
// the server, the socket, and this process's receive, decode and hand-off. It then runs until a
// signal and reports the percentiles over the transactions committed within a window that starts
// --latency-warmup-seconds after the first one.
//
// With --untyped the sink reads each field's raw text and its length instead of typing it: what
// the pipeline itself costs, apart from the casts a sink asks for (typing is on demand, per field).
//
// With --floor it is not replicant's pipeline at all but the least a consumer can do with the same
// libpq layer (replicant::pq): one thread that reads the stream, looks only at the type byte of each
// pgoutput message and, in a Commit, at its end position and timestamp, and acknowledges each
// read's last commit at once. No decoding, no typed values, no hand-off between threads: the floor
// against which the pipeline's latency and CPU are judged.
//
// On exit it prints one line of key=value pairs on stdout (counts, the checksum, the durable
// position, its own CPU time and peak RSS from getrusage, the latency figures), which the harness
// checks against the workload it generated. Nothing it prints is a row value: counts, LSNs, a
// checksum and times only.
//
// Usage: replicant-bench-null --dsn DSN --slot SLOT --publication PUB --end-lsn X/Y
//                             [--low-water BYTES] [--max-delay-ms MS] [--ack-delay-ms MS] [--gather-us US]
//                             [--protocol N] [--streaming]
//                             [--max-inflight-mib N] [--spill-dir DIR] [--idle-seconds S]
//                             [--latency-seconds S [--latency-warmup-seconds S]] [--untyped] [--floor]
// (--idle-seconds: stream for S seconds and stop, whatever arrives; for the idle RSS figure.)

#include <replicant/pipeline.hpp>
#include <replicant/wire/framing.hpp>

#include "common/cli.hpp"
#include "common/stop_signal.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

namespace {

using replicant::lsn;
using replicant::value_kind;
namespace cli = replicant::examples;

struct options {
  std::string dsn;
  std::string slot;
  std::string publication;
  std::optional<lsn> end;
  std::uint32_t low_water = 0;
  std::uint32_t max_delay_ms = 5;
  std::uint32_t ack_delay_ms = 20;
  std::uint32_t gather_us = 300;
  std::uint32_t protocol = 0;
  std::uint32_t idle_seconds = 0;
  bool streaming = false;
  std::uint32_t max_inflight_mib = 64;
  std::string spill_dir;  // empty: no_spill
  std::uint32_t latency_seconds = 0;
  std::uint32_t latency_warmup_seconds = 0;
  bool untyped = false;
  bool floor = false;
};

// The command line as text, before its values are checked: CLI11 reads into these.
struct arguments {
  cli::command_line line{
      "replicant-bench-null",
      "Streams SLOT through a replicant pipeline into a sink that types every value, and stops once\n"
      "the acknowledged position reaches --end-lsn (or after --idle-seconds, or at a signal with\n"
      "--latency-seconds). Prints one line of counts, a checksum, its CPU time and peak RSS, and the\n"
      "commit-to-sink latency percentiles with --latency-seconds.",
      ""};
  std::string dsn;
  std::string slot;
  std::string publication;
  std::string end;
  std::string low_water = "0";
  std::string max_delay_ms = "5";
  std::string ack_delay_ms = "20";
  std::string gather_us = "300";
  std::string protocol = "0";
  std::string idle_seconds = "0";
  bool streaming = false;
  std::string max_inflight_mib = "64";
  std::string spill_dir;
  std::string latency_seconds = "0";
  std::string latency_warmup_seconds = "0";
  bool untyped = false;
  bool floor = false;

  arguments() {
    line.text("--dsn", dsn, "DSN", "", "libpq connection string").required();
    line.text("--slot", slot, "SLOT", "", "the slot").required();
    line.text("--publication", publication, "PUB", "", "the publication").required();
    line.text("--end-lsn", end, "X/Y", "none", "stop once the acknowledged position reaches it");
    line.text("--low-water", low_water, "BYTES", "0", "receive_low_water_bytes");
    line.text("--max-delay-ms", max_delay_ms, "MS", "5", "receive_max_delay");
    line.text("--ack-delay-ms", ack_delay_ms, "MS", "20", "acknowledge_delay (the floor's too)");
    line.text("--gather-us", gather_us, "US", "300", "receive_gather_delay (the floor's too)");
    line.text("--protocol", protocol, "N", "0: the highest", "pgoutput protocol version");
    line.text("--idle-seconds", idle_seconds, "S", "0: off", "stream for S seconds and stop, whatever arrives");
    line.flag("--streaming", streaming, "pgoutput streaming of large transactions (protocol 2+)");
    line.text("--max-inflight-mib", max_inflight_mib, "N", "64", "the pipeline's resident budget");
    line.text("--spill-dir", spill_dir, "DIR", "none: no_spill", "disk_spill into DIR instead of no_spill");
    line.text("--latency-seconds", latency_seconds, "S", "0: off", "measure commit-to-sink latency for S seconds");
    line.text("--latency-warmup-seconds", latency_warmup_seconds, "S", "0", "with --latency-seconds: a warm-up");
    line.flag("--untyped", untyped, "the sink reads each field's raw text instead of typing it");
    line.flag("--floor", floor,
              "no pipeline: one thread reading the stream with replicant::pq,\nlooking at the Commit messages only "
              "(the floor for latency and CPU)");
  }
  arguments(const arguments&) = delete;
  auto operator=(const arguments&) -> arguments& = delete;
};

// Returns the options, or nothing after printing why (never echoing a value: it may be a secret).
auto parse(std::span<const char* const> args) -> std::optional<options> {
  arguments a;
  const auto fail = [&](const std::string& what) -> std::optional<options> {
    std::fprintf(stderr, "replicant-bench-null: %s\n%s", what.c_str(), a.line.help().c_str());
    return std::nullopt;
  };
  if (auto bad = a.line.parse(args)) return fail(bad->to_refusal().reason);
  if (a.line.help_requested()) {
    std::fputs(a.line.help().c_str(), stdout);
    std::exit(cli::exit_ok);
  }
  options o;
  o.dsn = a.dsn;
  o.slot = a.slot;
  o.publication = a.publication;
  o.streaming = a.streaming;
  o.untyped = a.untyped;
  o.floor = a.floor;
  if (a.line.given("--end-lsn")) {
    auto at = replicant::parse_lsn(a.end);
    if (!at) return fail("--end-lsn: malformed LSN");
    o.end = *at;
  }
  // Sets `into` from a number within [low, high]; false when out of range.
  const auto set = [](std::uint32_t& into, const std::string& text, std::uint32_t low, std::uint32_t high) {
    auto n = cli::parse_unsigned(text, low, high);
    if (n) into = *n;
    return n.has_value();
  };
  if (!set(o.low_water, a.low_water, 0, 1U << 30U)) return fail("--low-water: out of range");
  if (!set(o.max_delay_ms, a.max_delay_ms, 1, 60'000)) return fail("--max-delay-ms: out of range");
  if (!set(o.ack_delay_ms, a.ack_delay_ms, 0, 10'000)) return fail("--ack-delay-ms: out of range");
  if (!set(o.gather_us, a.gather_us, 0, 100'000)) return fail("--gather-us: out of range");
  if (!set(o.protocol, a.protocol, 0, 4)) return fail("--protocol: out of range");
  if (!set(o.idle_seconds, a.idle_seconds, 0, 3600)) return fail("--idle-seconds: out of range");
  if (!set(o.max_inflight_mib, a.max_inflight_mib, 1, 64U * 1024U)) return fail("--max-inflight-mib: out of range");
  if (a.line.given("--spill-dir") && a.spill_dir.empty()) return fail("--spill-dir: empty value");
  o.spill_dir = a.spill_dir;
  if (!set(o.latency_seconds, a.latency_seconds, 0, 3600)) return fail("--latency-seconds: out of range");
  if (!set(o.latency_warmup_seconds, a.latency_warmup_seconds, 0, 3600)) {
    return fail("--latency-warmup-seconds: out of range");
  }
  if (!o.end && o.idle_seconds == 0 && o.latency_seconds == 0) {
    return fail("--end-lsn (or --idle-seconds, or --latency-seconds) is required");
  }
  return o;
}

// What the sink saw. Written by the applier thread only; read after run() returned.
struct tally {
  std::uint64_t transactions = 0;
  std::uint64_t streamed = 0;  // of which the server streamed while in progress
  std::uint64_t rows = 0;
  std::uint64_t fields = 0;
  std::uint64_t unchanged = 0;      // unchanged TOAST columns: no value to type
  std::uint64_t int_sum = 0;        // every int64 value added up: the harness knows what to expect
  std::uint64_t text_bytes = 0;     // the bytes of every text value: likewise
  std::uint64_t checksum = 0;       // something of every other value, so no cast can be skipped
  std::uint64_t spilled_bytes = 0;  // of the delivered transactions, what was held on disk
  std::uint64_t largest_bytes = 0;  // the largest delivered transaction, as held in memory
  lsn last_end{};                   // where the last transaction delivered ends
};

// One delivered transaction for the latency figures: when it committed and how long after that
// the sink received it, both in microseconds.
struct arrival {
  std::int64_t committed_us = 0;
  std::int64_t latency_us = 0;
};

// The sink: a real sink's contract (dedup by commit LSN, checkpoint returned on connect, the commit
// LSN returned as persisted) with memory standing in for the storage.
class null_sink {
 public:
  null_sink(bool record_latency, bool untyped) : record_latency_{record_latency}, untyped_{untyped} {
    if (record_latency_) arrivals_.reserve(std::size_t{1} << 18U);
  }

  auto checkpoint() -> replicant::result<std::optional<lsn>> { return stored_; }

  auto handle_transaction(const replicant::transaction& t) -> replicant::result<lsn> {
    if (record_latency_) {
      // First thing, before any of the work below: the time the sink received the transaction.
      const auto now = std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now());
      const auto committed = t.commit_time().time_since_epoch().count();
      arrivals_.push_back({committed, now.time_since_epoch().count() - committed});
    }
    if (stored_ && t.commit_lsn() <= *stored_) return t.commit_lsn();  // seen before a reconnect
    for (const replicant::change& c : t.changes()) {
      ++tally_.rows;
      if (auto r = touch(c.record()); !r) return replicant::unexpected(r.error());
      if (auto r = touch(c.old()); !r) return replicant::unexpected(r.error());
    }
    ++tally_.transactions;
    if (t.streamed()) ++tally_.streamed;
    tally_.spilled_bytes += t.spilled_bytes();
    tally_.largest_bytes = std::max<std::uint64_t>(tally_.largest_bytes, t.byte_size());
    tally_.last_end = t.end_lsn();
    stored_ = t.commit_lsn();
    return t.commit_lsn();
  }

  [[nodiscard]] auto counts() const noexcept -> const tally& { return tally_; }
  [[nodiscard]] auto arrivals() const noexcept -> const std::vector<arrival>& { return arrivals_; }

 private:
  auto touch(const replicant::row& r) -> replicant::result<void> {
    for (const replicant::field f : r) {
      ++tally_.fields;
      if (f.is_unchanged()) {
        ++tally_.unchanged;
        continue;
      }
      if (untyped_) {
        tally_.checksum += f.raw().text().size();
        continue;
      }
      const auto v = f.value();
      if (!v) return replicant::unexpected(v.error());
      tally_.checksum = tally_.checksum * 31U + static_cast<std::uint64_t>(v->kind());
      switch (v->kind()) {
        case value_kind::int64: tally_.int_sum += static_cast<std::uint64_t>(v->get<std::int64_t>()); break;
        case value_kind::boolean: tally_.checksum += v->get<bool>() ? 1U : 0U; break;
        case value_kind::numeric: tally_.checksum += v->get<replicant::numeric>().view().size(); break;
        case value_kind::text: tally_.text_bytes += v->get<replicant::text>().size(); break;
        case value_kind::timestamptz:
          tally_.checksum += static_cast<std::uint64_t>(v->get<replicant::timestamptz>().micros_since_2000());
          break;
        default: break;
      }
    }
    return {};
  }

  bool record_latency_;
  bool untyped_;
  std::optional<lsn> stored_;
  tally tally_;
  std::vector<arrival> arrivals_;
};

// Commit-to-sink latency over the measured window.
struct latency_summary {
  std::size_t count = 0;
  double rate = 0;  // transactions committed per second within the window
  std::int64_t p50_us = 0;
  std::int64_t p90_us = 0;
  std::int64_t p99_us = 0;
  std::int64_t max_us = 0;
  std::int64_t covered_us = 0;  // from the first to the last commit inside the window
};

// The window starts `warmup` after the first commit seen and lasts `length`; percentiles are by
// nearest rank (the smallest latency that at least p % of the transactions did not exceed).
auto summarize(const std::vector<arrival>& all, std::chrono::seconds warmup, std::chrono::seconds length)
    -> latency_summary {
  latency_summary s;
  if (all.empty()) return s;
  const std::int64_t first = std::min_element(all.begin(), all.end(), [](const arrival& a, const arrival& b) {
                               return a.committed_us < b.committed_us;
                             })->committed_us;
  const std::int64_t from = first + std::chrono::duration_cast<std::chrono::microseconds>(warmup).count();
  const std::int64_t to = from + std::chrono::duration_cast<std::chrono::microseconds>(length).count();
  std::vector<std::int64_t> in;
  std::int64_t lo = to;
  std::int64_t hi = from;
  for (const auto& a : all) {
    if (a.committed_us < from || a.committed_us >= to) continue;
    in.push_back(a.latency_us);
    lo = std::min(lo, a.committed_us);
    hi = std::max(hi, a.committed_us);
  }
  if (in.empty()) return s;
  std::sort(in.begin(), in.end());
  // The per-mille-th percentile: rank ceil(per_mille * n / 1000), in integers so that no rounding
  // moves it.
  const auto rank = [&](std::size_t per_mille) {
    const auto k = std::clamp<std::size_t>((per_mille * in.size() + 999U) / 1000U, 1, in.size());
    return in[k - 1];
  };
  s.count = in.size();
  s.rate = static_cast<double>(in.size()) / static_cast<double>(length.count());
  s.p50_us = rank(500);
  s.p90_us = rank(900);
  s.p99_us = rank(990);
  s.max_us = in.back();
  s.covered_us = hi - lo;
  return s;
}

// The pipeline's stop(), whatever its spill policy, for the signal hook and the telemetry handler.
struct running {
  void (*stop)(void*) noexcept = nullptr;
  void* pipeline = nullptr;
  lsn (*durable)(const void*) noexcept = nullptr;
};
std::atomic<const running*> the_pipeline{nullptr};
// The highest position acknowledged to the server: the durable position, or an idle advance past it.
std::atomic<std::uint64_t> acknowledged_position{0};
// When the program started, and how long after that the end position was acknowledged: the time to
// drain, without the stop that follows (closing the stream and the connections).
const auto program_start = std::chrono::steady_clock::now();
std::atomic<std::int64_t> end_reached_after_us{-1};

void stop_running() noexcept {
  if (const auto* r = the_pipeline.load()) r->stop(r->pipeline);
}

auto microseconds(const timeval& t) -> long long {
  return static_cast<long long>(t.tv_sec) * 1'000'000LL + static_cast<long long>(t.tv_usec);
}

// Prints the one line the harness reads: counts, positions, CPU, peak RSS and, when measured, the
// latency figures. Nothing in it is a row value.
void print_report(const options& o, const tally& t, lsn reached, const std::vector<arrival>& arrivals) {
  rusage self{};
  ::getrusage(RUSAGE_SELF, &self);
  std::printf(
      "transactions=%llu streamed=%llu rows=%llu fields=%llu unchanged=%llu int_sum=%llu text_bytes=%llu "
      "checksum=%016llx spilled_bytes=%llu largest_bytes=%llu last_end=%s acknowledged=%s to_end_us=%lld "
      "user_us=%lld sys_us=%lld max_rss_kb=%ld",
      static_cast<unsigned long long>(t.transactions), static_cast<unsigned long long>(t.streamed),
      static_cast<unsigned long long>(t.rows), static_cast<unsigned long long>(t.fields),
      static_cast<unsigned long long>(t.unchanged), static_cast<unsigned long long>(t.int_sum),
      static_cast<unsigned long long>(t.text_bytes), static_cast<unsigned long long>(t.checksum),
      static_cast<unsigned long long>(t.spilled_bytes), static_cast<unsigned long long>(t.largest_bytes),
      replicant::to_string(t.last_end).c_str(), replicant::to_string(reached).c_str(),
      static_cast<long long>(end_reached_after_us.load()), microseconds(self.ru_utime), microseconds(self.ru_stime),
      self.ru_maxrss);
  if (o.latency_seconds > 0) {
    const auto l =
        summarize(arrivals, std::chrono::seconds(o.latency_warmup_seconds), std::chrono::seconds(o.latency_seconds));
    std::printf(
        " latency_count=%zu latency_rate=%.1f latency_covered_us=%lld p50_us=%lld p90_us=%lld p99_us=%lld "
        "max_us=%lld",
        l.count, l.rate, static_cast<long long>(l.covered_us), static_cast<long long>(l.p50_us),
        static_cast<long long>(l.p90_us), static_cast<long long>(l.p99_us), static_cast<long long>(l.max_us));
  }
  std::printf("\n");
  std::fflush(stdout);
}

// The floor (--floor): one thread, replicant::pq and the framing only. It reads what the server
// sends, counts Inserts, Updates and Commits by their type byte, takes each Commit's end position
// and timestamp, and acknowledges the last commit of every read at once (as the pipeline does for
// a batch). Between transactions it also acknowledges a keepalive's position, as pg_recvlogical
// does (not while a streamed transaction may be open: it does not track them). It stops at a
// signal, or once the acknowledged position reaches --end-lsn.
auto run_floor(const options& o) -> int {
  namespace pq = replicant::pq;
  const auto refuse = [](const char* why) {
    std::fprintf(stderr, "replicant-bench-null: %s\n", why);
    return cli::exit_failure;
  };
  auto slot = replicant::quote_identifier(o.slot);
  auto publication = replicant::quote_identifier(o.publication);
  auto names = publication ? replicant::quote_literal(*publication) : publication;
  if (!slot || !names) return refuse("unusable slot or publication name");
  auto conn = pq::connection::open(o.dsn, pq::session_kind::replication);
  if (!conn) return refuse("cannot connect");
  const auto protocol = o.protocol != 0 ? o.protocol : 1U;
  std::string start = "START_REPLICATION SLOT " + *slot + " LOGICAL 0/0 (proto_version '" + std::to_string(protocol) +
                      "', publication_names " + *names + (o.streaming ? ", streaming 'on')" : ")");
  auto stream =
      pq::replication_stream::start(std::move(*conn), start, {.gather_delay = std::chrono::microseconds(o.gather_us)});
  if (!stream) return refuse("START_REPLICATION failed");

  tally t;
  std::vector<arrival> arrivals;
  if (o.latency_seconds > 0) arrivals.reserve(std::size_t{1} << 18U);
  lsn received{};
  lsn acked{};  // the commits' ends, and idle keepalive positions
  lsn reported{};
  bool in_transaction = false;
  bool reply = true;
  bool failed = false;
  auto next_status = std::chrono::steady_clock::now();
  // The pipeline's cadence (acknowledge_delay): a moved position waits for the delay since the last
  // update, so that both pay the server the same replies.
  const auto ack_delay = std::chrono::milliseconds(o.ack_delay_ms);
  auto last_status = next_status - ack_delay;
  const auto be64 = [](std::span<const std::byte> b, std::size_t at) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < 8; ++i) v = (v << 8U) | std::to_integer<std::uint64_t>(b[at + i]);
    return v;
  };
  const auto update = [&] {
    return replicant::encode_status_update(
        {std::max(received, acked), acked, acked,
         std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now()), false});
  };
  while (!cli::stop_signal::requested() && !(o.end && acked >= *o.end)) {
    const auto now = std::chrono::steady_clock::now();
    const bool ack_due = acked != reported && now - last_status >= ack_delay;
    if (reply || ack_due || now >= next_status) {
      if (!stream->send(update())) {
        failed = true;
        break;
      }
      reported = acked;
      reply = false;
      last_status = now;
      next_status = now + std::chrono::seconds(10);
    }
    // At most 100 ms, and no longer than until a position waiting for its update is due.
    const auto ack_due_in = std::chrono::ceil<std::chrono::milliseconds>(last_status + ack_delay - now);
    const auto wait = acked != reported
                          ? std::clamp(ack_due_in, std::chrono::milliseconds(0), std::chrono::milliseconds(100))
                          : std::chrono::milliseconds(100);
    auto w = stream->wait(cli::stop_signal::fd(), wait);
    if (!w) {
      failed = true;
      break;
    }
    if (*w != pq::wait_outcome::readable) continue;
    auto got = stream->receive(
        [&](pq::frame&& f) {
          auto m = replicant::parse_copy_data(f.bytes());
          if (!m) {
            failed = true;
            return;
          }
          if (const auto* k = std::get_if<replicant::primary_keepalive>(&*m)) {
            received = std::max(received, k->wal_end);
            if (!in_transaction && !o.streaming) acked = std::max(acked, k->wal_end);
            reply = reply || k->reply_requested;
            return;
          }
          const auto& x = std::get<replicant::xlog_data>(*m);
          received = std::max(received, x.wal_end);
          const auto d = x.data;
          if (d.empty()) return;
          switch (static_cast<char>(d[0])) {
            case 'B': in_transaction = true; break;
            case 'I':
            case 'U': ++t.rows; break;
            case 'C':    // type, flags, commit LSN, end LSN, timestamp
            case 'c': {  // Stream Commit: the same after an xid
              const std::size_t at = static_cast<char>(d[0]) == 'C' ? 10U : 14U;
              if (d.size() < at + 16U) {
                failed = true;
                return;
              }
              if (o.latency_seconds > 0) {
                const auto now_us =
                    std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now())
                        .time_since_epoch()
                        .count();
                const auto committed = replicant::from_postgres_time(static_cast<std::int64_t>(be64(d, at + 8U)))
                                           .time_since_epoch()
                                           .count();
                arrivals.push_back({committed, now_us - committed});
              }
              ++t.transactions;
              t.last_end = lsn{be64(d, at)};
              acked = std::max(acked, t.last_end);
              in_transaction = false;
              break;
            }
            default: break;
          }
        },
        std::numeric_limits<std::size_t>::max());
    if (!got || failed) {
      failed = true;
      break;
    }
  }
  if (!failed && stream->send(update())) static_cast<void>(stream->finish());
  cli::stop_signal::block();
  print_report(o, t, acked, arrivals);
  if (failed) return refuse("the stream failed");
  return cli::exit_ok;
}

template <class SpillPolicy>
auto run(const options& o, SpillPolicy spill) -> int {
  using null_pipeline = replicant::pgoutput_pipeline<null_sink, replicant::sink_owned_checkpoint, SpillPolicy>;
  replicant::pipeline_options po;
  po.conninfo = o.dsn;
  po.slot = o.slot;
  po.start = replicant::start::go_forward{};  // no checkpoint yet: stream from the slot's own position
  po.create_slot = false;                     // the harness prepared it; a missing one is an error
  const replicant::pgoutput_options pg{
      .publications = {o.publication}, .protocol_version = o.protocol, .streaming = o.streaming};
  po.max_inflight_bytes = std::size_t{o.max_inflight_mib} * 1024U * 1024U;
  po.receive_low_water_bytes = o.low_water;
  po.receive_max_delay = std::chrono::milliseconds(o.max_delay_ms);
  po.acknowledge_delay = std::chrono::milliseconds(o.ack_delay_ms);
  po.receive_gather_delay = std::chrono::microseconds(o.gather_us);
  po.max_command_retries = 0;

  null_sink sink{o.latency_seconds > 0, o.untyped};
  // The end is reached either by a delivered transaction (the durable position moves to its end) or,
  // when WAL with nothing published follows the last one, by an idle advance to the server's
  // keepalive position: both are checkpoint_advanced events, so watch those.
  replicant::telemetry::dispatcher events;
  if (o.end) {
    const lsn end = *o.end;
    events.attach([end](const replicant::telemetry::event_record& e) {
      if (e.name != replicant::telemetry::events::checkpoint_advanced::name) return;
      const auto* r = the_pipeline.load();
      if (r == nullptr) return;
      const auto* at = e.find("commit_lsn");
      const auto* l = at ? std::get_if<lsn>(at) : nullptr;
      // Events come from two threads: keep the highest position either has seen.
      auto seen = std::max(r->durable(r->pipeline).value(), l != nullptr ? l->value() : 0U);
      for (auto before = acknowledged_position.load();
           before < seen && !acknowledged_position.compare_exchange_weak(before, seen);) {
      }
      if (seen >= end.value()) {
        const auto us =
            std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - program_start);
        std::int64_t unset = -1;
        end_reached_after_us.compare_exchange_strong(unset, us.count());
        r->stop(r->pipeline);
      }
    });
  }
  null_pipeline pipeline{sink, pg, replicant::sink_owned_checkpoint{}, std::move(spill), po, &events};
  const running handle{[](void* p) noexcept { static_cast<null_pipeline*>(p)->stop(); }, &pipeline,
                       [](const void* p) noexcept { return static_cast<const null_pipeline*>(p)->durable_lsn(); }};
  the_pipeline.store(&handle);
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

  const lsn reached{std::max(acknowledged_position.load(), pipeline.durable_lsn().value())};
  print_report(o, sink.counts(), reached, sink.arrivals());
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
    if (parsed->floor) return run_floor(*parsed);
    if (!parsed->spill_dir.empty()) return run(*parsed, replicant::disk_spill{.dir = parsed->spill_dir});
    return run(*parsed, replicant::no_spill{});
  } catch (const std::exception&) {
    std::fputs("replicant-bench-null: failed (out of memory, or an exception from the pipeline)\n", stderr);
    return cli::exit_failure;
  }
}
