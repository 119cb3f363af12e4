// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-bench-decode: what it costs, per row, to get from XLogData frames to typed values.
//
// It generates a capture in memory (no server needed, so the figure is repeatable): one table of
// five columns (int4 id, text name, numeric(12,2) amount, timestamptz created_at, bool flag),
// inserted in transactions of --rows-per-transaction rows, each message a whole CopyData payload with
// its 25-byte XLogData header, exactly as libpq hands it over. Then, interleaved round by round so
// that drift in the machine's speed hits every measurement alike, it times:
//
//   (a) floor     parse_copy_data, touch the payload's first byte, walk each row's column headers:
//                 the least any consumer must do to find the values, decoding nothing;
//   (b) assemble  every payload through replicant::assembler; each delivered transaction is read
//                 change by change and field by field with field::value(), then recycled;
//   (c) decode    pgoutput_reader::decode alone: no copy into a transaction, no typed values.
//
// and prints the minimum and the median of each, in ns/row and MB/s of CopyData bytes, and the
// ratio (b)/(a). Every run is also checked (row count, value kinds, a sum of the ids, the value
// bytes seen by the floor walk), and the program exits non-zero if any check fails, which is what
// the ctest entry relies on. It never judges a time.
//
// Usage: replicant-bench-decode [--rows N] [--rows-per-transaction N] [--rounds N] [--only a|b|c]
// (--only runs one measurement once, without a warm-up: for instruction counts with callgrind).

#include <replicant/assembler/assembler.hpp>
#include <replicant/core/detail/byte_reader.hpp>
#include <replicant/decoder/pgoutput_reader.hpp>
#include <replicant/model/value.hpp>
#include <replicant/wire/framing.hpp>

#include "support/wire/pgoutput_builder.hpp"

#include "../common/program.hpp"
#include "../common/splitmix.hpp"
#include "../common/statistics.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <variant>
#include <vector>

namespace {

namespace pg = replicant::test;
using replicant::value_kind;
using replicant::bench::median;
using replicant::bench::minimum;
using replicant::bench::parse_count;

constexpr std::uint32_t orders_oid = 16384;
constexpr std::size_t columns_per_row = 5;

// The three measurements, in the order they run within a round.
enum class measurement : std::uint8_t { floor, assemble, decode };

constexpr std::array<std::string_view, 3> labels{
    "(a) floor: frame walk",
    "(b) decode + assemble + cast",
    "(c) decode only",
};

struct options {
  std::size_t rows = 1'000'000;
  std::size_t rows_per_transaction = 1'000;
  std::size_t rounds = 7;
  // --only: run just this measurement, once and without a warm-up, so that an instruction count
  // (callgrind --toggle-collect) covers exactly `rows` rows.
  std::optional<measurement> only{};
};

// --- the capture ------------------------------------------------------------------------------

// Every CopyData payload back to back, and where each one is. One buffer rather than one
// allocation per message keeps generation quick; each measurement still sees one frame at a time.
struct capture {
  std::vector<std::byte> bytes;
  std::vector<std::span<const std::byte>> frames;
  std::size_t rows = 0;
  std::size_t transactions = 0;
  // What a correct run must find: the sum of the ids, and the bytes of all column values.
  std::uint64_t id_sum = 0;
  std::uint64_t value_bytes = 0;
};

// splitmix64: a fixed seed makes every run see the same capture.
using replicant::bench::splitmix64;

auto append_number(std::string& out, std::uint64_t v, int min_digits = 1) -> void {
  std::array<char, 24> buf{};
  const auto end = std::to_chars(buf.data(), buf.data() + buf.size(), v).ptr;
  for (auto n = static_cast<int>(end - buf.data()); n < min_digits; ++n) out.push_back('0');
  out.append(buf.data(), end);
}

// The five text values of row @p index, in the server's output format under the settings the
// replication connection pins (DateStyle=ISO, TimeZone=UTC).
auto make_row(std::size_t index, splitmix64& rng) -> std::vector<pg::col> {
  std::string id;
  append_number(id, index + 1);

  std::string name = "customer ";
  append_number(name, rng.next() % 100'000);

  // numeric(12,2): the scale is fixed, so the server always prints two decimals.
  std::string amount;
  const std::uint64_t cents = rng.next() % 100'000'000;
  if (rng.next() % 16 == 0) amount.push_back('-');
  append_number(amount, cents / 100);
  amount.push_back('.');
  append_number(amount, cents % 100, 2);

  // timestamptz: seconds advance with the row, the fraction is random and, like the server's
  // output, printed without trailing zeros (and not at all when zero).
  const std::size_t second = index % (28 * 86'400);
  std::string created = "2024-05-";
  append_number(created, 1 + second / 86'400, 2);
  created.push_back(' ');
  append_number(created, second / 3'600 % 24, 2);
  created.push_back(':');
  append_number(created, second / 60 % 60, 2);
  created.push_back(':');
  append_number(created, second % 60, 2);
  if (std::uint64_t micros = rng.next() % 1'000'000; micros != 0) {
    int digits = 6;
    while (micros % 10 == 0) {
      micros /= 10;
      --digits;
    }
    created.push_back('.');
    append_number(created, micros, digits);
  }
  created += "+00";

  std::string flag = rng.next() % 2 == 0 ? "t" : "f";
  return {pg::col::text(std::move(id)), pg::col::text(std::move(name)), pg::col::text(std::move(amount)),
          pg::col::text(std::move(created)), pg::col::text(std::move(flag))};
}

auto generate(const options& opt) -> capture {
  capture c;
  splitmix64 rng;
  std::vector<std::size_t> sizes;
  c.bytes.reserve(opt.rows * 128);

  std::uint64_t wal = 0x16'B374'D848;
  std::int64_t clock = 767'000'000'000'000;  // May 2024, in microseconds since 2000
  std::uint32_t xid = 1'000;
  const auto emit = [&](std::uint64_t at, const pg::bytes& payload) {
    const pg::bytes frame = pg::xlog(replicant::lsn{at}, clock, payload);
    c.bytes.insert(c.bytes.end(), frame.begin(), frame.end());
    sizes.push_back(frame.size());
  };

  std::vector<pg::bytes> changes;
  for (std::size_t first = 0; first < opt.rows; first += opt.rows_per_transaction) {
    const std::size_t last = std::min(opt.rows, first + opt.rows_per_transaction);
    // pgoutput describes a relation before its first change in the session, inside the transaction.
    changes.clear();
    if (first == 0) {
      changes.push_back(pg::relation(std::nullopt, orders_oid, "public", "orders", 'd',
                                     {{"id", 23, -1, true},
                                      {"name", 25, -1, false},
                                      {"amount", 1700, (12 << 16 | 2) + 4, false},
                                      {"created_at", 1184, -1, false},
                                      {"flag", 16, -1, false}}));
    }
    for (std::size_t i = first; i < last; ++i) {
      std::vector<pg::col> row = make_row(i, rng);
      c.id_sum += i + 1;
      for (const pg::col& v : row) c.value_bytes += v.value.size();
      changes.push_back(pg::insert(std::nullopt, orders_oid, row));
    }
    // The WAL positions: each message a little further on, the commit after the last change.
    std::uint64_t at = wal;
    std::uint64_t commit_at = wal;
    for (const pg::bytes& m : changes) commit_at += m.size();
    const std::uint64_t end_at = commit_at + 64;
    emit(wal, pg::begin(replicant::lsn{commit_at}, clock, xid));
    for (const pg::bytes& m : changes) {
      emit(m[0] == std::byte{'R'} ? 0 : at, m);
      at += m.size();
    }
    emit(end_at, pg::commit(replicant::lsn{commit_at}, replicant::lsn{end_at}, clock));
    wal = end_at;
    clock += 1'000;
    ++xid;
    ++c.transactions;
    c.rows += last - first;
  }

  // Views only once the buffer has stopped growing.
  c.frames.reserve(sizes.size());
  std::size_t offset = 0;
  for (const std::size_t n : sizes) {
    c.frames.emplace_back(c.bytes.data() + offset, n);
    offset += n;
  }
  return c;
}

// --- the three measurements -----------------------------------------------------------------------
// Each returns what it saw, checked against the capture by verify(); printing the tallies is also
// what keeps the compiler from discarding the work. Not inlined, so a profiler can attribute (and
// callgrind --toggle-collect can isolate) each one.

struct tally {
  std::size_t rows = 0;
  std::size_t errors = 0;
  std::uint64_t checksum = 0;
  std::array<std::size_t, std::variant_size_v<replicant::value::variant_type>> kinds{};  // per value_kind; (b) only
};

// (a) The floor: find every column value of every row without decoding anything.
[[gnu::noinline]] auto run_floor(const capture& c) -> tally {
  using replicant::detail::load_big_endian;
  tally t;
  for (const std::span<const std::byte> frame : c.frames) {
    const auto msg = replicant::parse_copy_data(frame);
    const auto* w = msg ? std::get_if<replicant::xlog_data>(&*msg) : nullptr;
    if (w == nullptr || w->data.empty()) {
      ++t.errors;
      continue;
    }
    const std::byte* p = w->data.data();
    if (*p != std::byte{'I'}) continue;
    p += 1 + 4 + 1;  // type, relation OID, 'N'
    const auto count = load_big_endian<2>(p);
    p += 2;
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::byte kind = *p++;
      if (kind == std::byte{'t'} || kind == std::byte{'b'}) {
        const auto length = load_big_endian<4>(p);
        p += 4 + length;
        t.checksum += length;
      }
    }
    ++t.rows;
  }
  return t;
}

// (c) Decoding alone, one message at a time, as the assembler calls it.
[[gnu::noinline]] auto run_decode(const capture& c) -> tally {
  tally t;
  replicant::pgoutput_reader decoder;
  for (const std::span<const std::byte> frame : c.frames) {
    const auto msg = replicant::parse_copy_data(frame);
    const auto* w = msg ? std::get_if<replicant::xlog_data>(&*msg) : nullptr;
    if (w == nullptr) {
      ++t.errors;
      continue;
    }
    replicant::pgoutput::message decoded;
    if (decoder.decode(w->data, decoded)) {
      ++t.errors;
      continue;
    }
    if (const auto* insert = std::get_if<replicant::pgoutput::insert_message>(&decoded)) {
      ++t.rows;
      t.checksum += insert->new_tuple.size();
    }
  }
  return t;
}

// A sink that reads every value and keeps nothing: what (b) delivers to.
class null_sink {
 public:
  explicit null_sink(tally& t) noexcept : tally_(&t) {}

  auto operator()(replicant::transaction&& txn) -> replicant::result<void> {
    for (const replicant::change& change : txn.changes()) {
      ++tally_->rows;
      for (const replicant::field field : change.record()) {
        const auto v = field.value();
        if (!v) {
          ++tally_->errors;
          continue;
        }
        ++tally_->kinds[static_cast<std::size_t>(v->kind())];
        tally_->checksum += fold(*v);
      }
    }
    // Handed back to the assembler after push() returns, so the next transaction reuses its memory.
    delivered_.emplace(std::move(txn));
    return {};
  }
  auto operator()(const replicant::logical_message&) -> replicant::result<void> { return unexpected_event(); }
  auto operator()(const replicant::schema_change&) -> replicant::result<void> { return unexpected_event(); }
  auto operator()(const replicant::empty_commit&) -> replicant::result<void> { return unexpected_event(); }
  auto operator()(const replicant::prepared_event&) -> replicant::result<void> { return unexpected_event(); }
  auto operator()(const replicant::rollback_prepared_event&) -> replicant::result<void> { return unexpected_event(); }
  auto operator()(const replicant::stream_abort_event&) -> replicant::result<void> { return unexpected_event(); }

  [[nodiscard]] auto take() -> std::optional<replicant::transaction> {
    std::optional<replicant::transaction> out = std::move(delivered_);
    delivered_.reset();
    return out;
  }

 private:
  // Something of every value the capture holds, so none of the casting can be skipped; the id
  // column is the only integer, which makes the int64 part checkable.
  static auto fold(const replicant::value& v) noexcept -> std::uint64_t {
    switch (v.kind()) {
      case value_kind::boolean: return 0;
      case value_kind::int64: return static_cast<std::uint64_t>(*v.get_if<std::int64_t>());
      case value_kind::numeric: return static_cast<std::uint64_t>(v.get_if<replicant::numeric>()->view().size()) << 32U;
      case value_kind::text: return static_cast<std::uint64_t>(v.get_if<replicant::text>()->size()) << 32U;
      case value_kind::timestamptz:
        return static_cast<std::uint64_t>(v.get_if<replicant::timestamptz>()->micros_since_2000() & 0xFFFF) << 40U;
      default: return 0;
    }
  }
  auto unexpected_event() noexcept -> replicant::result<void> {
    ++tally_->errors;
    return {};
  }

  tally* tally_;
  std::optional<replicant::transaction> delivered_;
};

// (b) Decode, assemble and type every value.
[[gnu::noinline]] auto run_assemble(const capture& c) -> tally {
  tally t;
  replicant::assembler assembler;
  null_sink sink{t};
  for (const std::span<const std::byte> frame : c.frames) {
    const auto msg = replicant::parse_copy_data(frame);
    const auto* w = msg ? std::get_if<replicant::xlog_data>(&*msg) : nullptr;
    if (w == nullptr || !assembler.push(w->data, sink)) {
      ++t.errors;
      continue;
    }
    if (auto txn = sink.take()) assembler.recycle(std::move(*txn));
  }
  return t;
}

// --- checking and reporting -----------------------------------------------------------------------

auto verify(measurement m, const tally& t, const capture& c) -> bool {
  bool ok = t.rows == c.rows && t.errors == 0;
  switch (m) {
    case measurement::floor: ok = ok && t.checksum == c.value_bytes; break;
    case measurement::decode: ok = ok && t.checksum == c.rows * columns_per_row; break;
    case measurement::assemble: {
      // One value of each of the five kinds per row, and the ids (the only integers) add up.
      for (const value_kind k :
           {value_kind::int64, value_kind::text, value_kind::numeric, value_kind::timestamptz, value_kind::boolean}) {
        ok = ok && t.kinds[static_cast<std::size_t>(k)] == c.rows;
      }
      std::size_t fields = 0;
      for (const std::size_t n : t.kinds) fields += n;
      ok = ok && fields == c.rows * columns_per_row && (t.checksum & 0xFFFF'FFFFU) == (c.id_sum & 0xFFFF'FFFFU);
      break;
    }
  }
  if (!ok) {
    std::fprintf(stderr, "replicant-bench-decode: %s: check failed (rows %zu of %zu, %zu errors)\n",
                 labels[static_cast<std::size_t>(m)].data(), t.rows, c.rows, t.errors);
  }
  return ok;
}

auto parse_options(int argc, char** argv, options& opt) -> bool {
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const bool has_value = i + 1 < args.size();
    if (args[i] == "--rows" && has_value) {
      if (!parse_count(args[++i], opt.rows)) return false;
    } else if (args[i] == "--rows-per-transaction" && has_value) {
      if (!parse_count(args[++i], opt.rows_per_transaction)) return false;
    } else if (args[i] == "--rounds" && has_value) {
      if (!parse_count(args[++i], opt.rounds)) return false;
    } else if (args[i] == "--only" && has_value) {
      const std::string_view which = args[++i];
      if (which == "a") {
        opt.only = measurement::floor;
      } else if (which == "b") {
        opt.only = measurement::assemble;
      } else if (which == "c") {
        opt.only = measurement::decode;
      } else {
        return false;
      }
      opt.rounds = 1;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

auto main(int argc, char** argv) -> int {
  constexpr const char* usage =
      "usage: replicant-bench-decode [--rows N] [--rows-per-transaction N] [--rounds N] [--only a|b|c]\n";
  options opt;
  if (const auto status = replicant::bench::read_command_line(argc, argv, usage, parse_options, opt)) return *status;

  const capture c = generate(opt);
  const double mb = static_cast<double>(c.bytes.size()) / 1e6;
  std::printf("capture: %zu rows in %zu transactions, %zu CopyData messages, %.1f MB (%.1f bytes per message)\n",
              c.rows, c.transactions, c.frames.size(), mb,
              static_cast<double>(c.bytes.size()) / static_cast<double>(c.frames.size()));
  std::vector<measurement> order{measurement::floor, measurement::assemble, measurement::decode};
  if (opt.only) {
    order = {*opt.only};
    std::printf("only %s, once, without a warm-up\n\n", labels[static_cast<std::size_t>(*opt.only)].data());
  } else {
    std::printf("rounds: %zu, interleaved (a) (b) (c), after one untimed warm-up round\n\n", opt.rounds);
  }

  bool ok = true;
  std::array<std::vector<double>, 3> ns_per_row;
  std::uint64_t sink = 0;
  for (std::size_t round = opt.only ? 1 : 0; round <= opt.rounds; ++round) {
    for (const measurement m : order) {
      const auto start = std::chrono::steady_clock::now();
      const tally t = m == measurement::floor      ? run_floor(c)
                      : m == measurement::assemble ? run_assemble(c)
                                                   : run_decode(c);
      const auto stop = std::chrono::steady_clock::now();
      ok = verify(m, t, c) && ok;
      sink += t.checksum;
      if (round == 0) continue;  // the warm-up
      const std::chrono::duration<double, std::nano> took = stop - start;
      ns_per_row[static_cast<std::size_t>(m)].push_back(took.count() / static_cast<double>(c.rows));
    }
  }

  const auto& floor_ns = ns_per_row[static_cast<std::size_t>(measurement::floor)];
  const auto& assemble_ns = ns_per_row[static_cast<std::size_t>(measurement::assemble)];
  std::printf("%-30s %12s %14s %12s %14s\n", "", "min ns/row", "median ns/row", "median MB/s",
              floor_ns.empty() ? "" : "x floor (med)");
  for (const measurement m : order) {
    const auto& ns = ns_per_row[static_cast<std::size_t>(m)];
    const double med = median(ns);
    const double mb_per_s = mb / (med * static_cast<double>(c.rows) / 1e9);
    std::printf("%-30s %12.1f %14.1f %12.0f", labels[static_cast<std::size_t>(m)].data(), minimum(ns), med, mb_per_s);
    if (floor_ns.empty()) {
      std::printf("\n");
    } else {
      std::printf(" %14.2f\n", med / median(floor_ns));
    }
  }
  if (!floor_ns.empty() && !assemble_ns.empty()) {
    std::printf("\nratio (b)/(a): %.2f (medians), %.2f (minima)\n", median(assemble_ns) / median(floor_ns),
                minimum(assemble_ns) / minimum(floor_ns));
  }
  std::printf("checksum %016llx, checks %s\n", static_cast<unsigned long long>(sink), ok ? "passed" : "FAILED");
  return ok ? 0 : 1;
}
