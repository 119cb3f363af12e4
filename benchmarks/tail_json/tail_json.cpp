// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-bench-tail-json: replicant-tail's JSON-lines writer (examples/tail/json.hpp, written by
// hand) against the same lines written with nlohmann/json (Debian's nlohmann-json3-dev), the library
// the writer would otherwise use. No server: the changes are generated in memory with the test
// suite's pgoutput encoder and assembled into transactions once, before anything is timed.
//
// Two workloads of realistic change records, in transactions of --per-transaction changes (seven
// inserts, two updates and a delete in ten):
//
//   orders        id int4 (the key), name text (some of it not ASCII), amount numeric(12,2),
//                 created_at timestamptz, flag bool: the decode benchmark's table;
//   orders+jsonb  the same with a small jsonb column as the server prints it.
//
// Each writer renders every transaction and writes its lines to /dev/null in pieces of 64 KiB, as
// replicant-tail does (the hand-written one *is* replicant-tail's sink, jsonl_sink). The two run
// interleaved round by round, in alternating order, after one untimed warm-up round; the program
// prints, per workload and writer, the minimum and median thread CPU time and wall time per
// change, the output rate, and the ratio of the medians.
//
// The warm-up round also compares the two outputs line by line: on `orders` they must be
// byte-identical (otherwise the nlohmann writer would not be a fair stand-in, and the program
// exits 1); on `orders+jsonb` the count of identical lines is printed. A last table shows the
// values whose rendering differs between the two (the reasons the output would change).
//
// Usage: replicant-bench-tail-json [--changes N] [--per-transaction N] [--rounds N]

#include "../../examples/tail/json.hpp"
#include "../../examples/tail/jsonl_sink.hpp"
#include "../../examples/tail/output.hpp"

#include "support/sinks/transaction_collector.hpp"
#include "support/wire/pgoutput_builder.hpp"

#include "../common/program.hpp"
#include "../common/splitmix.hpp"
#include "../common/statistics.hpp"

#include <replicant/assembler/assembler.hpp>
#include <replicant/model/pg_type.hpp>

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

namespace pg = replicant::test;
namespace tail = replicant::examples::tail;
namespace types = replicant::pg_type;
using ojson = nlohmann::ordered_json;
using replicant::lsn;
using replicant::bench::median;
using replicant::bench::minimum;
using replicant::bench::parse_count;

struct options {
  std::size_t changes = 200'000;
  std::size_t per_transaction = 10;
  std::size_t rounds = 7;
};

// --- the workloads --------------------------------------------------------------------------------

// splitmix64: a fixed seed makes every run see the same changes.
using replicant::bench::splitmix64;

auto number(std::uint64_t v, int min_digits = 1) -> std::string {
  std::array<char, 24> buf{};
  const auto end = std::to_chars(buf.data(), buf.data() + buf.size(), v).ptr;
  std::string out(static_cast<std::size_t>(std::max(0, min_digits - static_cast<int>(end - buf.data()))), '0');
  return out.append(buf.data(), end);
}

// The columns of row @p id, as the server prints them (DateStyle=ISO, TimeZone=UTC).
auto make_row(std::uint64_t id, splitmix64& rng, bool with_jsonb) -> std::vector<pg::col> {
  static constexpr std::array<std::string_view, 6> names{"customer ", "Kunde Müller ", "client Lefèvre ",
                                                         "顧客 ",     "cliente Peña ", "customer \"VIP\" "};
  std::string name{names[rng.next() % names.size()]};
  name += number(rng.next() % 100'000);
  const std::uint64_t cents = rng.next() % 100'000'000;
  std::string amount = (rng.next() % 16 == 0 ? "-" : "") + number(cents / 100) + "." + number(cents % 100, 2);
  const std::uint64_t second = id % (28 * 86'400);
  std::string created = "2024-05-" + number(1 + second / 86'400, 2) + " " + number(second / 3'600 % 24, 2) + ":" +
                        number(second / 60 % 60, 2) + ":" + number(second % 60, 2);
  // The fraction as the server prints it: without trailing zeros, and none at all when zero.
  if (std::uint64_t micros = rng.next() % 1'000'000; micros != 0) {
    int digits = 6;
    for (; micros % 10 == 0; micros /= 10) --digits;
    created += "." + number(micros, digits);
  }
  created += "+00";
  std::vector<pg::col> row{pg::col::text(number(id)), pg::col::text(std::move(name)), pg::col::text(std::move(amount)),
                           pg::col::text(std::move(created)), pg::col::text(rng.next() % 2 == 0 ? "t" : "f")};
  if (with_jsonb) {
    row.push_back(pg::col::text(R"({"tags": ["web", "gift"], "items": )" + number(1 + rng.next() % 9) +
                                R"(, "source": "checkout", "coupon": null})"));
  }
  return row;
}

// Every transaction of a workload, assembled once.
struct workload {
  std::string_view name;
  std::vector<replicant::transaction> transactions;
  std::size_t changes = 0;
};

auto generate(std::string_view name, bool with_jsonb, const options& opt) -> workload {
  constexpr std::uint32_t orders = 16384;
  std::vector<pg::attr> columns{{"id", types::int4, -1, true},
                                {"name", types::text, -1, false},
                                {"amount", types::numeric, (12 << 16 | 2) + 4, false},
                                {"created_at", types::timestamptz, -1, false},
                                {"flag", types::boolean, -1, false}};
  if (with_jsonb) columns.push_back({"attrs", types::jsonb, -1, false});

  replicant::assembler assembler{{.version = 1}};
  pg::transaction_collector collected;
  splitmix64 rng;
  const auto push = [&](const pg::bytes& m) {
    if (!assembler.push(m, collected)) {
      std::fprintf(stderr, "replicant-bench-tail-json: the generated capture does not assemble\n");
      std::exit(1);
    }
  };
  std::uint64_t wal = 0x16'B374'D848;
  std::int64_t clock = 767'000'000'000'000;  // May 2024, in microseconds since 2000
  std::uint32_t xid = 1'000;
  std::uint64_t next_id = 1;
  workload w{name, {}, 0};
  while (w.changes < opt.changes) {
    push(pg::begin(lsn{wal + 4096}, clock, xid));
    if (w.changes == 0) push(pg::relation(std::nullopt, orders, "public", "orders", 'd', columns));
    for (std::size_t i = 0; i < opt.per_transaction && w.changes < opt.changes; ++i, ++w.changes) {
      const std::size_t slot = i % 10;
      if (slot < 7 || next_id < 10) {
        push(pg::insert(std::nullopt, orders, make_row(next_id++, rng, with_jsonb)));
      } else if (slot < 9) {
        push(pg::update(std::nullopt, orders, 0, {}, make_row(next_id - 1 - rng.next() % 9, rng, with_jsonb)));
      } else {
        // Under the default replica identity a delete carries the key alone.
        std::vector<pg::col> key(columns.size(), pg::col::null());
        key[0] = pg::col::text(number(next_id - 1 - rng.next() % 9));
        push(pg::remove(std::nullopt, orders, 'K', key));
      }
    }
    push(pg::commit(lsn{wal + 4096}, lsn{wal + 4160}, clock));
    wal += 4160;
    clock += 1'000;
    ++xid;
  }
  w.transactions = std::move(collected.transactions);
  return w;
}

// --- the nlohmann/json writer -------------------------------------------------------------------
// The same lines as examples/tail/json.hpp, built as ordered_json objects (key order kept) and
// written with dump(): compact, non-ASCII as it is, invalid UTF-8 replaced. Dates and times are
// formatted by the tail's own functions, which are calendar code rather than JSON (the library has
// none); a json or jsonb document has to be parsed, since an ordered_json value cannot hold raw text.

auto to_json(const replicant::value& v) -> ojson;

template <class T>
auto iso_string(const T& x) -> std::string {
  std::string s;
  if constexpr (std::is_same_v<T, replicant::date>) {
    tail::append_iso_date(s, x);
  } else if constexpr (std::is_same_v<T, replicant::time_of_day>) {
    tail::append_iso_time(s, x);
  } else {
    tail::append_iso_timestamp(s, x);
  }
  return s;
}

auto to_json(const replicant::value& v) -> ojson {
  return v.visit([](const auto& x) -> ojson {
    using T = std::decay_t<decltype(x)>;
    if constexpr (std::is_same_v<T, replicant::null_t>) {
      return nullptr;
    } else if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::int64_t>) {
      return x;
    } else if constexpr (std::is_same_v<T, double>) {
      if (std::isnan(x)) return "NaN";
      if (std::isinf(x)) return x < 0 ? "-Infinity" : "Infinity";
      return x;
    } else if constexpr (std::is_same_v<T, replicant::numeric> || std::is_same_v<T, replicant::text>) {
      return std::string{x.view()};
    } else if constexpr (std::is_same_v<T, replicant::json>) {
      return x.view().empty() ? ojson(nullptr) : ojson::parse(x.view());
    } else if constexpr (std::is_same_v<T, replicant::date> || std::is_same_v<T, replicant::time_of_day> ||
                         std::is_same_v<T, replicant::timestamp> || std::is_same_v<T, replicant::timestamptz>) {
      return iso_string(x);
    } else if constexpr (std::is_same_v<T, replicant::array>) {
      ojson a = ojson::array();
      for (const replicant::value& e : x) a.push_back(to_json(e));
      return a;
    } else {
      return to_string(x);
    }
  });
}

auto row_json(const replicant::row& r, bool key_only) -> replicant::result<ojson> {
  ojson o = ojson::object();
  for (const replicant::field f : r) {
    if (f.is_unchanged() || (key_only && !f.column().key)) continue;
    auto v = f.value();
    if (!v) return replicant::unexpected(v.error());
    o.emplace(std::string{f.name()}, to_json(*v));
  }
  return o;
}

auto append_change(std::string& out, const ojson& prefix, const replicant::change& c) -> replicant::result<void> {
  ojson line = prefix;
  line.emplace("op", std::string{to_string(c.op())});
  line.emplace("schema", c.relation().schema);
  line.emplace("table", c.relation().table);
  if (c.op() == replicant::change_op::truncate) {
    line.emplace("cascade", c.truncate_cascade());
    line.emplace("restart_identity", c.truncate_restart_identity());
  }
  if (c.op() == replicant::change_op::insert || c.op() == replicant::change_op::update ||
      c.op() == replicant::change_op::snapshot) {
    auto record = row_json(c.record(), false);
    if (!record) return replicant::unexpected(record.error());
    line.emplace("record", std::move(*record));
  }
  if (c.old_kind() != replicant::old_tuple_kind::none && !c.old().empty()) {
    auto old = row_json(c.old(), c.old_kind() == replicant::old_tuple_kind::key);
    if (!old) return replicant::unexpected(old.error());
    line.emplace("old", std::move(*old));
  }
  if (const auto unchanged = c.unchanged(); !unchanged.empty()) {
    ojson names = ojson::array();
    for (const auto& n : unchanged) names.push_back(std::string{n});
    line.emplace("unchanged", std::move(names));
  }
  out += line.dump(-1, ' ', false, ojson::error_handler_t::replace);
  out.push_back('\n');
  return {};
}

// render_transaction's contract, with the nlohmann writer: lines into @p buffer, handed to @p write
// past 64 KiB and at the end.
template <class Write>
auto render_with_nlohmann(const replicant::transaction& t, std::string& buffer, Write&& write)
    -> replicant::result<void> {
  ojson prefix = ojson::object();
  prefix.emplace("lsn", replicant::to_string(t.commit_lsn()));
  prefix.emplace("xid", t.xid());
  std::string commit_time;
  tail::append_json_commit_time(commit_time, t.commit_time());
  prefix.emplace("commit_time", commit_time.substr(1, commit_time.size() - 2));
  try {
    for (const replicant::change& c : t.changes()) {
      if (auto r = append_change(buffer, prefix, c); !r) return r;
      if (buffer.size() > 64 * 1024) {
        if (auto w = write(buffer); !w) return w;
      }
    }
  } catch (const nlohmann::json::exception&) {
    return replicant::unexpected(make_error_code(replicant::errc::decode_failure));
  }
  if (buffer.empty()) return {};
  return write(buffer);
}

// --- the runs -------------------------------------------------------------------------------------

enum class writer : std::uint8_t { by_hand, nlohmann };

constexpr std::array<std::string_view, 2> writer_names{"by hand (json.hpp)", "nlohmann/json"};

struct timing {
  double cpu_ns = 0;
  double wall_ns = 0;
  bool ok = true;
};

auto thread_cpu_ns() -> double {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// Every transaction of @p w through writer @p which into @p fd. What is written was checked by
// render_all() beforehand; here only the time is taken.
[[gnu::noinline]] auto run(const workload& w, writer which, int fd) -> timing {
  timing t;
  tail::output_stream out{fd};
  tail::jsonl_sink sink{out, false};
  std::string buffer;
  const auto write = [&out](std::string& chunk) -> replicant::result<void> {
    auto r = out.write(chunk);
    chunk.clear();
    return r;
  };
  const double cpu0 = thread_cpu_ns();
  const auto wall0 = std::chrono::steady_clock::now();
  for (const replicant::transaction& txn : w.transactions) {
    if (which == writer::by_hand) {
      t.ok = sink.handle_transaction(txn).has_value() && t.ok;
    } else {
      buffer.clear();
      t.ok = render_with_nlohmann(txn, buffer, write).has_value() && t.ok;
    }
  }
  t.cpu_ns = thread_cpu_ns() - cpu0;
  t.wall_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - wall0).count();
  if (which == writer::by_hand) t.ok = t.ok && sink.written() == w.transactions.size();
  return t;
}

// The whole output of @p which for @p w, as one string.
auto render_all(const workload& w, writer which) -> std::string {
  std::string all;
  std::string buffer;
  const auto keep = [&all](std::string& chunk) -> replicant::result<void> {
    all += chunk;
    chunk.clear();
    return {};
  };
  for (const replicant::transaction& txn : w.transactions) {
    buffer.clear();
    const auto r = which == writer::by_hand ? tail::render_transaction(txn, false, buffer, keep)
                                            : render_with_nlohmann(txn, buffer, keep);
    if (!r) return {};
  }
  return all;
}

// How many lines of @p a and @p b are byte-identical, and whether both have @p expected lines.
auto identical_lines(std::string_view a, std::string_view b, std::size_t expected) -> std::optional<std::size_t> {
  std::size_t same = 0;
  std::size_t lines = 0;
  while (!a.empty() && !b.empty()) {
    const auto ea = a.find('\n');
    const auto eb = b.find('\n');
    if (ea == std::string_view::npos || eb == std::string_view::npos) return std::nullopt;
    same += a.substr(0, ea) == b.substr(0, eb) ? 1U : 0U;
    ++lines;
    a.remove_prefix(ea + 1);
    b.remove_prefix(eb + 1);
  }
  if (!a.empty() || !b.empty() || lines != expected) return std::nullopt;
  return same;
}

// --- where the outputs differ ---------------------------------------------------------------------

// A line's bytes with everything outside printable ASCII shown as \xNN, for the terminal.
auto printable(std::string_view s) -> std::string {
  std::string out;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20U && u < 0x7FU) {
      out.push_back(c);
    } else {
      constexpr char hex[] = "0123456789abcdef";
      out += "\\x";
      out.push_back(hex[u >> 4U]);
      out.push_back(hex[u & 0xFU]);
    }
  }
  return out;
}

// One value per case, in a table (id int4, t text, f float8, j jsonb); prints what each writer makes
// of the record and whether they agree.
auto show_differences() -> void {
  struct case_ {
    std::string_view what;
    std::size_t column;
    std::string text;
  };
  const std::vector<case_> cases{
      {"DEL (U+007F) in text", 1, "a\x7f"},
      {"C1 control U+0085 in text", 1, "a\xc2\x85"},
      {"U+2028 in text", 1, "a\xe2\x80\xa8"},
      {"invalid UTF-8 (SQL_ASCII database)", 1, "a\xff\xfe"},
      {"float8 with an integral value", 2, "3"},
      {"float8 1e+20", 2, "1e+20"},
      {"jsonb as the server prints it", 3, R"({"a": 1, "b": [true, null]})"},
      {"jsonb number beyond a double", 3, R"({"n": 1.000000000000000000001})"},
  };
  constexpr std::uint32_t relid = 16385;
  replicant::assembler assembler{{.version = 1}};
  pg::transaction_collector collected;
  bool ok = assembler.push(pg::begin(lsn{0x100}, 0, 7), collected).has_value();
  ok = ok && assembler
                 .push(pg::relation(std::nullopt, relid, "public", "cases", 'd',
                                    {{"id", types::int4, -1, true},
                                     {"t", types::text, -1, false},
                                     {"f", types::float8, -1, false},
                                     {"j", types::jsonb, -1, false}}),
                       collected)
                 .has_value();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    std::vector<pg::col> row(4, pg::col::null());
    row[0] = pg::col::text(number(i + 1));
    row[cases[i].column] = pg::col::text(cases[i].text);
    ok = ok && assembler.push(pg::insert(std::nullopt, relid, row), collected).has_value();
  }
  ok = ok && assembler.push(pg::commit(lsn{0x100}, lsn{0x110}, 0), collected).has_value();
  if (!ok || collected.transactions.size() != 1) return;
  const replicant::transaction& txn = collected.transactions.front();
  const std::string prefix = tail::transaction_prefix(txn);
  ojson json_prefix = ojson::parse(prefix.substr(0, prefix.size() - 1) + "}");
  std::printf("\nvalues whose line differs (record only, bytes outside printable ASCII as \\xNN):\n");
  std::size_t i = 0;
  for (const replicant::change& c : txn.changes()) {
    std::string by_hand;
    std::string with_library;
    const bool rendered = tail::append_json_change(by_hand, prefix, c).has_value() &&
                          append_change(with_library, json_prefix, c).has_value();
    const auto record = [](const std::string& line) { return line.substr(line.find("\"record\":")); };
    std::printf("  %-36s %s\n", cases[i++].what.data(),
                !rendered                 ? "not rendered"
                : by_hand == with_library ? "same"
                                          : "differs");
    if (rendered && by_hand != with_library) {
      std::printf("    by hand   %s\n    nlohmann  %s\n", printable(record(by_hand)).c_str(),
                  printable(record(with_library)).c_str());
    }
  }
}

auto parse_options(int argc, char** argv, options& opt) -> bool {
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const bool has_value = i + 1 < args.size();
    std::size_t* target = args[i] == "--changes"           ? &opt.changes
                          : args[i] == "--per-transaction" ? &opt.per_transaction
                          : args[i] == "--rounds"          ? &opt.rounds
                                                           : nullptr;
    if (target == nullptr || !has_value || !parse_count(args[++i], *target)) return false;
  }
  return true;
}

}  // namespace

auto main(int argc, char** argv) -> int {
  constexpr const char* usage = "usage: replicant-bench-tail-json [--changes N] [--per-transaction N] [--rounds N]\n";
  options opt;
  if (const auto status = replicant::bench::read_command_line(argc, argv, usage, parse_options, opt)) return *status;
  const int dev_null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (dev_null < 0) {
    std::fprintf(stderr, "replicant-bench-tail-json: cannot open /dev/null\n");
    return 1;
  }

  const std::array<workload, 2> workloads{generate("orders", false, opt), generate("orders+jsonb", true, opt)};
  std::printf("%zu changes per workload in transactions of %zu; %zu rounds, interleaved, after one untimed warm-up\n",
              opt.changes, opt.per_transaction, opt.rounds);

  bool ok = true;
  std::array<std::array<std::size_t, 2>, 2> bytes{};  // [workload][writer]: the output's size
  // Fidelity first: the stand-in must write replicant-tail's lines where nothing forces a difference.
  for (std::size_t wi = 0; wi < workloads.size(); ++wi) {
    const workload& w = workloads[wi];
    const std::string by_hand = render_all(w, writer::by_hand);
    const std::string with_library = render_all(w, writer::nlohmann);
    bytes[wi] = {by_hand.size(), with_library.size()};
    const auto same = identical_lines(by_hand, with_library, w.changes);
    if (!same) {
      std::fprintf(stderr, "replicant-bench-tail-json: %s: the writers did not both write %zu lines\n", w.name.data(),
                   w.changes);
      ok = false;
      continue;
    }
    std::printf("%-13s %zu bytes by hand (%.1f per line); byte-identical lines: %zu of %zu\n", w.name.data(),
                by_hand.size(), static_cast<double>(by_hand.size()) / static_cast<double>(w.changes), *same, w.changes);
    if (w.name == "orders" && *same != w.changes) {
      std::fprintf(stderr, "replicant-bench-tail-json: orders: the nlohmann writer is not a faithful stand-in\n");
      ok = false;
    }
  }

  // [workload][writer] -> per round
  std::array<std::array<std::vector<double>, 2>, 2> cpu{};
  std::array<std::array<std::vector<double>, 2>, 2> wall{};
  for (std::size_t round = 0; round <= opt.rounds; ++round) {
    for (std::size_t wi = 0; wi < workloads.size(); ++wi) {
      for (std::size_t k = 0; k < 2; ++k) {
        const auto which = static_cast<writer>((k + round) % 2);  // alternate which goes first
        const timing t = run(workloads[wi], which, dev_null);
        const auto wr = static_cast<std::size_t>(which);
        if (!t.ok) {
          std::fprintf(stderr, "replicant-bench-tail-json: %s, %s: a transaction failed\n", workloads[wi].name.data(),
                       writer_names[wr].data());
          ok = false;
        }
        if (round == 0) continue;  // the warm-up
        const auto n = static_cast<double>(workloads[wi].changes);
        cpu[wi][wr].push_back(t.cpu_ns / n);
        wall[wi][wr].push_back(t.wall_ns / n);
      }
    }
  }

  std::printf("\n%-13s %-20s %12s %14s %14s %12s %12s\n", "workload", "writer", "min CPU ns", "median CPU ns",
              "median wall ns", "lines/s", "MB/s");
  for (std::size_t wi = 0; wi < workloads.size(); ++wi) {
    for (std::size_t wr = 0; wr < 2; ++wr) {
      const double med = median(cpu[wi][wr]);
      std::printf("%-13s %-20s %12.0f %14.0f %14.0f %12.0f %12.1f\n", workloads[wi].name.data(),
                  writer_names[wr].data(), minimum(cpu[wi][wr]), med, median(wall[wi][wr]), 1e9 / med,
                  static_cast<double>(bytes[wi][wr]) / static_cast<double>(workloads[wi].changes) / med * 1e3);
    }
    std::printf("%-13s nlohmann / by hand: %.2f (median CPU), %.2f (minimum CPU), %.2f (median wall)\n",
                workloads[wi].name.data(), median(cpu[wi][1]) / median(cpu[wi][0]),
                minimum(cpu[wi][1]) / minimum(cpu[wi][0]), median(wall[wi][1]) / median(wall[wi][0]));
  }
  show_differences();
  ::close(dev_null);
  std::printf("\nchecks %s\n", ok ? "passed" : "FAILED");
  return ok ? 0 : 1;
}
