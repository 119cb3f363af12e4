// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Writes the seed corpora of the fuzz targets, in the input layouts the targets document:
//   replicant_fuzz_seeds <out dir> <casting roundtrip.tsv> [<directory of pgoutput captures>]
// into <out dir>/<target>/. Seeds are built with tests/support/wire/pgoutput_builder.hpp, use every
// value of the casting fixtures (each type's real text and send output), and, when the capture
// directory exists and holds `*.capture` files (tests/support/wire/capture_file.hpp), the recorded
// sessions too. Run at build time; nothing here is committed.
#include "fuzz_common.hpp"
#include "support/wire/pgoutput_builder.hpp"

#if __has_include("support/wire/capture_file.hpp")
#include "support/wire/capture_file.hpp"
#define REPLICANT_FUZZ_HAVE_CAPTURES 1
#else
#define REPLICANT_FUZZ_HAVE_CAPTURES 0
#endif

#include <replicant/core/lsn.hpp>
#include <replicant/decoder/pgoutput_reader.hpp>
#include <replicant/wire/framing.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace pg = replicant::test;
namespace fuzz = replicant::fuzz;
namespace t = replicant::pg_type;
using replicant::lsn;
using replicant::pgoutput_streaming;

using bytes = pg::bytes;

struct fixture {
  std::string label;
  std::uint32_t oid;
  bytes text;
  bytes send;
};

auto read_fixtures(const fs::path& tsv) -> std::vector<fixture> {
  std::ifstream in{tsv};
  if (!in) throw std::runtime_error{"cannot open " + tsv.string()};
  std::vector<fixture> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::stringstream split{line};
    for (std::string f; std::getline(split, f, '\t');) fields.push_back(f);
    if (fields.size() < 3) continue;
    out.push_back({fields[0], static_cast<std::uint32_t>(std::stoul(fields[1])), pg::hex(fields[2]),
                   fields.size() > 3 ? pg::hex(fields[3]) : bytes{}});
  }
  return out;
}

auto as_string(const bytes& b) -> std::string { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

// Writes one seed file per call, named <target>/<prefix>-<n>.
class corpus_writer {
 public:
  explicit corpus_writer(fs::path root) : root_(std::move(root)) {}

  auto write(const std::string& target, const std::string& prefix, const bytes& content) -> void {
    const fs::path dir = root_ / target;
    fs::create_directories(dir);
    const fs::path file = dir / (prefix + "-" + std::to_string(count_++));
    std::ofstream out{file, std::ios::binary};
    out.write(reinterpret_cast<const char*>(content.data()), static_cast<std::streamsize>(content.size()));
    if (!out) throw std::runtime_error{"cannot write " + file.string()};
  }

  [[nodiscard]] auto count() const -> std::size_t { return count_; }

 private:
  fs::path root_;
  std::size_t count_ = 0;
};

auto prefixed(std::uint8_t first, const bytes& rest) -> bytes {
  bytes out{std::byte{first}};
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

// --- cast: [oid index][mode][bytes] ---------------------------------------------------------------

auto cast_seeds(corpus_writer& w, const std::vector<fixture>& fixtures) -> void {
  const auto seed = [&w](std::uint32_t oid, bool binary, const bytes& b) {
    bytes out{std::byte{fuzz::cast_oid_index(oid)}, std::byte{static_cast<unsigned char>(binary ? 1 : 0)}};
    out.insert(out.end(), b.begin(), b.end());
    w.write("cast", binary ? "binary" : "text", out);
  };
  for (const fixture& f : fixtures) {
    seed(f.oid, false, f.text);
    if (!f.send.empty()) seed(f.oid, true, f.send);
  }
  // Shapes the fixtures lack: the marker, the lenient fallbacks, arrays with quoting and bounds.
  for (const std::uint32_t oid : {t::text, t::varchar, t::json, t::xml, t::name, t::interval})
    seed(oid, false, pg::as_bytes(fuzz::marker));
  seed(t::money, false, pg::as_bytes("-$1,234,567.89"));
  seed(t::money, false, pg::as_bytes("1.234,56 EUR"));
  seed(t::money_array, false, pg::as_bytes("{$1.00,\"-$2,000.50\",NULL}"));
  seed(t::timestamptz, false, pg::as_bytes("2024-02-29 23:59:59.999999-15:59:59"));
  seed(t::timestamptz, false, pg::as_bytes("0044-03-15 12:00:00+01 BC"));
  seed(t::timestamp, false, pg::as_bytes("294276-12-31 23:59:59.999999"));
  seed(t::date, false, pg::as_bytes("5874897-12-31"));
  seed(t::text_array, false, pg::as_bytes("[0:1][-2:-2]={{\"a\\\"b\"},{NULL}}"));
  seed(t::int4_array, false, pg::as_bytes("{{{{{{1}}}}}}"));
  seed(t::numeric_array, false, pg::as_bytes("{NaN,-Infinity,0.0001000,-0}"));
  seed(t::bytea_array, false, pg::as_bytes("{\"\\\\x00ff\",NULL}"));
  seed(t::numeric, true, pg::wire{}.i16(2).i16(-3).u16(0x4000).u16(20).u16(1234).u16(9999).take());
  seed(t::numeric, true, pg::wire{}.i16(0).i16(32767).u16(0).u16(0x3FFF).take());
  seed(t::interval, true, pg::wire{}.i64(INT64_MIN).i32(INT32_MIN).i32(INT32_MIN).take());
  seed(t::timetz, true, pg::wire{}.i64(86'400'000'000).i32(-57'599).take());
  seed(t::int4_array, true,
       pg::wire{}.i32(2).i32(1).u32(t::int4).i32(1).i32(INT32_MAX).i32(2).i32(-5).i32(4).i32(7).i32(-1).take());
  seed(t::jsonb, true, pg::wire{}.u8(1).raw("{\"k\": [1, 2]}").take());
}

// --- framing: one CopyData payload ----------------------------------------------------------------

auto framing_seeds(corpus_writer& w, const std::vector<bytes>& messages) -> void {
  std::int64_t clock = 0;
  for (const bytes& m : messages) w.write("framing", "xlog", pg::xlog(lsn{0x16'B374'D848}, clock++, m));
  w.write("framing", "keepalive", pg::keepalive(lsn{0x1'0000'0000}, 778'000'000'000'000, true));
  w.write("framing", "keepalive", pg::keepalive(lsn{}, INT64_MAX, false));
  const auto update = replicant::encode_status_update({.write = lsn{10},
                                                       .flush = lsn{9},
                                                       .apply = lsn{8},
                                                       .clock = replicant::from_postgres_time(123),
                                                       .reply_requested = true});
  w.write("framing", "status", bytes(update.begin(), update.end()));
  w.write("framing", "xlog", pg::xlog(lsn{}, 0, {}));
}

// --- messages: the builder's whole repertoire ------------------------------------------------------

const std::vector<pg::attr> orders_attrs = {
    {"id", t::int4, -1, true}, {"customer", t::text, -1, false}, {"amount", t::numeric, 655'366, false}};

// Messages outside any stream.
auto plain_messages() -> std::vector<bytes> {
  const std::uint32_t orders = fuzz::orders_relation_oid;
  const std::string marked = "ACME " + std::string{fuzz::marker};
  return {
      pg::begin(lsn{0x3000}, 1'000, 700),
      pg::commit(lsn{0x3000}, lsn{0x3040}, 1'000),
      pg::origin(lsn{0x2000}, "node_b"),
      pg::relation(std::nullopt, orders, "public", "orders", 'd', orders_attrs),
      pg::relation(std::nullopt, orders, "public", "orders", 'f',
                   {{"id", t::int8, -1, true}, {"customer", t::text, -1, false}, {"extra", t::jsonb, -1, false}}),
      pg::relation(std::nullopt, 99, "", "fresh", 'i', {{"k", t::uuid, -1, true}}),
      pg::type(std::nullopt, 90'002, "public", "colour"),
      pg::insert(std::nullopt, orders, {pg::col::text("42"), pg::col::text(marked), pg::col::text("12.50")}),
      pg::insert(std::nullopt, orders,
                 {pg::col::binary(as_string(pg::wire{}.i32(7).take())), pg::col::null(),
                  pg::col::binary(as_string(pg::wire{}.i16(1).i16(0).u16(0x4000).u16(0).u16(5).take()))}),
      pg::update(std::nullopt, orders, 'K', {pg::col::text("42"), pg::col::null(), pg::col::null()},
                 {pg::col::text("43"), pg::col::unchanged(), pg::col::text("NaN")}),
      pg::update(std::nullopt, orders, 'O', {pg::col::text("42"), pg::col::text("a"), pg::col::text("1")},
                 {pg::col::text("42"), pg::col::text("b"), pg::col::text("-Infinity")}),
      pg::update(std::nullopt, orders, 0, {}, {pg::col::text("1"), pg::col::unchanged(), pg::col::unchanged()}),
      pg::remove(std::nullopt, orders, 'K', {pg::col::text("42"), pg::col::null(), pg::col::null()}),
      pg::remove(std::nullopt, orders, 'O', {pg::col::text("42"), pg::col::text(marked), pg::col::text("0.00")}),
      pg::truncate(std::nullopt, 3, {orders, fuzz::wide_relation_oid}),
      pg::message(std::nullopt, true, lsn{0x3010}, "audit", marked),
      pg::message(std::nullopt, false, lsn{0x3020}, std::string{fuzz::marker}, std::string("\0\1\2", 3)),
      pg::stream_start(7'002, true),
      pg::stream_stop(),
      pg::stream_commit(7'001, lsn{0x4000}, lsn{0x4040}, 2'000),
      pg::stream_abort(7'001, 7'005),
      pg::stream_abort(7'001, 7'001, std::pair{lsn{0x4100}, std::int64_t{3'000}}),
      pg::begin_prepare(lsn{0x5000}, lsn{0x5040}, 4'000, 800, "gid-" + std::string{fuzz::marker}),
      pg::prepare('P', lsn{0x5000}, lsn{0x5040}, 4'000, 800, "gid-1"),
      pg::prepare('p', lsn{0x5000}, lsn{0x5040}, 4'000, 800, "gid-1"),
      pg::commit_prepared(lsn{0x5100}, lsn{0x5140}, 5'000, 800, "gid-1"),
      pg::rollback_prepared(lsn{0x5040}, lsn{0x5200}, 4'000, 6'000, 800, "gid-1"),
  };
}

// Messages that carry an xid because they are inside a stream.
auto streamed_messages(std::uint32_t xid) -> std::vector<bytes> {
  const std::uint32_t orders = fuzz::orders_relation_oid;
  return {
      pg::relation(xid, orders, "public", "orders", 'd',
                   {{"id", t::int4, -1, true},
                    {"customer", t::text, -1, false},
                    {"amount", t::numeric, -1, false},
                    {"note", t::text, -1, false}}),
      pg::type(xid, 90'003, "public", "shade"),
      pg::insert(xid, orders, {pg::col::text("1"), pg::col::text("x"), pg::col::text("2.5")}),
      pg::insert(
          xid + 1, orders,
          {pg::col::text("1"), pg::col::text("x"), pg::col::text("2.5"), pg::col::text(std::string{fuzz::marker})}),
      pg::update(xid, orders, 'K', {pg::col::text("1"), pg::col::null(), pg::col::null()},
                 {pg::col::text("2"), pg::col::unchanged(), pg::col::text("3")}),
      pg::remove(xid, orders, 'K', {pg::col::text("2"), pg::col::null(), pg::col::null()}),
      pg::truncate(xid, 0, {orders}),
      pg::message(xid, true, lsn{0x4010}, "audit", "streamed"),
      pg::stream_stop(),
  };
}

// Inserts of every casting fixture into its single-column relation and into the wide one.
auto value_messages(const std::vector<fixture>& fixtures, std::optional<std::uint32_t> xid) -> std::vector<bytes> {
  std::vector<bytes> out;
  for (const fixture& f : fixtures) {
    out.push_back(pg::insert(xid, f.oid, {pg::col::text(as_string(f.text))}));
    if (!f.send.empty()) out.push_back(pg::insert(xid, f.oid, {pg::col::binary(as_string(f.send))}));
  }
  // The wide relation: the first fixture of each type in its column, NULL where there is none.
  std::vector<pg::col> text_row;
  std::vector<pg::col> binary_row;
  for (const std::uint32_t oid : fuzz::cast_oids) {
    const fixture* found = nullptr;
    for (const fixture& f : fixtures) {
      if (f.oid == oid) {
        found = &f;
        break;
      }
    }
    text_row.push_back(found ? pg::col::text(as_string(found->text)) : pg::col::text(std::string{fuzz::marker}));
    binary_row.push_back(found && !found->send.empty() ? pg::col::binary(as_string(found->send)) : pg::col::null());
  }
  out.push_back(pg::insert(xid, fuzz::wide_relation_oid, text_row));
  out.push_back(pg::insert(xid, fuzz::wide_relation_oid, binary_row));
  out.push_back(pg::update(xid, fuzz::wide_relation_oid, 'O', text_row, binary_row));
  return out;
}

// Selector bits of fuzz_pgoutput_message.cpp.
constexpr std::uint8_t in_stream_bit = 8;
constexpr std::uint8_t redescribed_bit = 16;
constexpr std::uint8_t reset_bit = 32;
constexpr std::uint8_t twice_bit = 64;

auto message_seeds(corpus_writer& w, const std::vector<fixture>& fixtures) -> void {
  const auto plain = plain_messages();
  const auto streamed = streamed_messages(7'001);
  for (std::uint8_t p = 0; p < fuzz::protocols.size(); ++p) {
    for (const bytes& m : plain) w.write("pgoutput_message", "plain", prefixed(p, m));
    if (fuzz::protocols[p].streaming == pgoutput_streaming::off) continue;
    for (const bytes& m : streamed) {
      w.write("pgoutput_message", "streamed", prefixed(p | in_stream_bit, m));
      w.write("pgoutput_message", "streamed", prefixed(p | in_stream_bit | redescribed_bit, m));
    }
  }
  // Values in two configurations only (they decode alike in all of them), outside and inside a stream.
  for (const bytes& m : value_messages(fixtures, std::nullopt)) w.write("pgoutput_message", "value", prefixed(0, m));
  for (const bytes& m : value_messages(fixtures, 7'001))
    w.write("pgoutput_message", "value", prefixed(7 | in_stream_bit, m));
  // A reconnect then a Relation; a message decoded twice.
  w.write("pgoutput_message", "reset", prefixed(5 | reset_bit, plain[3]));
  w.write("pgoutput_message", "twice", prefixed(6 | twice_bit, plain[3]));
  w.write("pgoutput_message", "twice", prefixed(6 | in_stream_bit | twice_bit, pg::stream_start(9, false)));
}

// --- streams: [selector][u16 length, message]... ---------------------------------------------------

class sequence {
 public:
  explicit sequence(std::uint8_t selector) : out_{std::byte{selector}} {}
  auto add(const bytes& m) -> sequence& {
    out_.push_back(static_cast<std::byte>(m.size() >> 8U));
    out_.push_back(static_cast<std::byte>(m.size() & 0xFFU));
    out_.insert(out_.end(), m.begin(), m.end());
    return *this;
  }
  auto reset() -> sequence& { return add({}); }
  [[nodiscard]] auto take() -> bytes { return std::move(out_); }

 private:
  bytes out_;
};

// Selector bits of fuzz_pgoutput_stream.cpp.
constexpr std::uint8_t preload_bit = 8;
constexpr std::uint8_t failing_sink_bit = 16;
constexpr std::uint8_t recycle_bit = 32;
constexpr std::uint32_t kinds = 16'386;

auto stream_seeds(corpus_writer& w) -> void {
  const std::uint32_t orders = fuzz::orders_relation_oid;
  const auto order = [](const char* id, const char* customer, const char* amount) {
    return std::vector<pg::col>{pg::col::text(id), pg::col::text(customer), pg::col::text(amount)};
  };
  const std::string marked = std::string{fuzz::marker};
  const auto relation = pg::relation(std::nullopt, orders, "public", "orders", 'd', orders_attrs);

  // An ordinary transaction with every kind of change, described in-line (no preload).
  const auto ordinary = [&](std::uint8_t selector) {
    return sequence{selector}
        .add(relation)
        .add(pg::begin(lsn{0x3000}, 1'000, 700))
        .add(pg::origin(lsn{0x2000}, "node_b"))
        .add(pg::insert(std::nullopt, orders, order("1", marked.c_str(), "12.50")))
        .add(pg::update(std::nullopt, orders, 'K', {pg::col::text("1"), pg::col::null(), pg::col::null()},
                        {pg::col::text("2"), pg::col::unchanged(), pg::col::text("-$1,234.56")}))
        .add(pg::remove(std::nullopt, orders, 'O', order("2", "x", "NaN")))
        .add(pg::message(std::nullopt, true, lsn{0x3010}, "audit", marked))
        .add(pg::message(std::nullopt, false, lsn{0x3020}, "flush", ""))
        .add(pg::truncate(std::nullopt, 1, {orders}))
        .add(pg::commit(lsn{0x3000}, lsn{0x3040}, 1'000))
        .add(pg::begin(lsn{0x3100}, 1'001, 701))
        .add(pg::commit(lsn{0x3100}, lsn{0x3140}, 1'001))
        .take();
  };
  for (std::uint8_t p = 0; p < fuzz::protocols.size(); ++p) w.write("pgoutput_stream", "ordinary", ordinary(p));
  w.write("pgoutput_stream", "ordinary", ordinary(recycle_bit | 1));
  w.write("pgoutput_stream", "ordinary", ordinary(failing_sink_bit | 2));

  // A schema change in the middle of a transaction, then a reconnect half-way through another.
  w.write("pgoutput_stream", "schema",
          sequence{preload_bit}
              .add(pg::begin(lsn{0x3000}, 1'000, 700))
              .add(pg::insert(std::nullopt, orders, order("1", "a", "1")))
              .add(pg::relation(std::nullopt, orders, "public", "orders", 'd',
                                {{"id", t::int8, -1, true}, {"customer", t::text, -1, false}}))
              .add(pg::insert(std::nullopt, orders, {pg::col::text("2"), pg::col::text("b")}))
              .add(pg::commit(lsn{0x3000}, lsn{0x3040}, 1'000))
              .add(pg::begin(lsn{0x3100}, 1'001, 701))
              .add(pg::insert(std::nullopt, orders, {pg::col::text("3"), pg::col::text("c")}))
              .reset()
              .add(relation)
              .add(pg::begin(lsn{0x3100}, 1'001, 701))
              .add(pg::insert(std::nullopt, orders, order("3", "c", "3")))
              .add(pg::commit(lsn{0x3100}, lsn{0x3140}, 1'001))
              .take());

  // Values of many types through the row mapping, in text and in binary.
  const auto kinds_text = pg::insert(
      std::nullopt, kinds,
      {pg::col::text("-$1,234.56"), pg::col::text("1 year 2 mons -3 days +04:05:06.5"),
       pg::col::text("{a,NULL,\"b c\"}"), pg::col::text("2024-05-01 12:00:00.25+00"), pg::col::text("\\xdeadbeef"),
       pg::col::text("{\"k\": 1}"), pg::col::text("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), pg::col::text("0.1"),
       pg::col::text("{1,2,3}"), pg::col::text("{\"x\\\\y\",plain}")});
  const auto kinds_binary = pg::insert(
      std::nullopt, kinds,
      {pg::col::binary(as_string(pg::wire{}.i64(-123'456).take())),
       pg::col::binary(as_string(pg::wire{}.i64(14'706'500'000).i32(-3).i32(14).take())),
       pg::col::binary(as_string(pg::wire{}.i32(1).i32(1).u32(t::text).i32(2).i32(1).i32(1).raw("a").i32(-1).take())),
       pg::col::binary(as_string(pg::wire{}.i64(768'225'600'250'000).take())), pg::col::binary("\xde\xad"),
       pg::col::binary(as_string(pg::wire{}.u8(1).raw("[1]").take())), pg::col::binary(std::string(16, '\x11')),
       pg::col::binary(as_string(pg::wire{}.u64(0x3FB999999999999AULL).take())),
       pg::col::binary(as_string(pg::wire{}.i32(1).i32(0).u32(t::int8).i32(1).i32(1).i32(8).i64(9).take())),
       pg::col::binary(as_string(pg::wire{}.i32(1).i32(0).u32(t::text).i32(1).i32(0).i32(3).raw("a\"b").take()))});
  const auto amounts = pg::insert(
      std::nullopt, orders,
      {pg::col::text("9"), pg::col::text("long customer name, well past sixteen bytes"),
       pg::col::binary(as_string(pg::wire{}.i16(3).i16(2).u16(0).u16(4).u16(12).u16(3456).u16(7890).take()))});
  w.write("pgoutput_stream", "kinds",
          sequence{preload_bit}
              .add(pg::begin(lsn{0x3000}, 1'000, 700))
              .add(kinds_text)
              .add(kinds_binary)
              .add(amounts)
              .add(pg::commit(lsn{0x3000}, lsn{0x3040}, 1'000))
              .take());

  // A streamed transaction across blocks, with a subtransaction abort, then committed; and one
  // aborted whole with the parallel abort information.
  for (const std::uint8_t p : {std::uint8_t{2}, std::uint8_t{4}, std::uint8_t{6}, std::uint8_t{7}}) {
    const bool parallel = fuzz::protocols[p].streaming == pgoutput_streaming::parallel;
    const auto abort_info = [&](std::uint64_t at) {
      return parallel ? std::optional{std::pair{lsn{at}, std::int64_t{9'000}}} : std::nullopt;
    };
    w.write("pgoutput_stream", "streamed",
            sequence{static_cast<std::uint8_t>(p | preload_bit)}
                .add(pg::stream_start(800, true))
                .add(pg::relation(800, orders, "public", "orders", 'd', orders_attrs))
                .add(pg::insert(800, orders, order("1", "a", "1")))
                .add(pg::message(801, true, lsn{0x4010}, "audit", "sub"))
                .add(pg::insert(801, orders, order("2", "b", "2")))
                .add(pg::stream_stop())
                .add(pg::begin(lsn{0x3000}, 1'000, 700))
                .add(pg::insert(std::nullopt, orders, order("3", "c", "3")))
                .add(pg::commit(lsn{0x3000}, lsn{0x3040}, 1'000))
                .add(pg::stream_start(800, false))
                .add(pg::insert(802, orders, order("4", "d", "4")))
                .add(pg::stream_stop())
                .add(pg::stream_abort(800, 801, abort_info(0x4100)))
                .add(pg::stream_commit(800, lsn{0x4200}, lsn{0x4240}, 2'000))
                .add(pg::stream_start(900, true))
                .add(pg::insert(900, orders, order("5", "e", "5")))
                .add(pg::stream_stop())
                .add(pg::stream_abort(900, 900, abort_info(0x4300)))
                .take());
  }

  // Two-phase: prepared then committed, prepared then rolled back, and a streamed prepare.
  for (const std::uint8_t p : {std::uint8_t{3}, std::uint8_t{4}, std::uint8_t{7}}) {
    sequence s{static_cast<std::uint8_t>(p | preload_bit | recycle_bit)};
    s.add(pg::begin_prepare(lsn{0x5000}, lsn{0x5040}, 4'000, 1'000, "gid-" + marked))
        .add(pg::insert(std::nullopt, orders, order("1", "a", "1")))
        .add(pg::prepare('P', lsn{0x5000}, lsn{0x5040}, 4'000, 1'000, "gid-" + marked))
        .add(pg::commit_prepared(lsn{0x5100}, lsn{0x5140}, 5'000, 1'000, "gid-" + marked))
        .add(pg::begin_prepare(lsn{0x5200}, lsn{0x5240}, 6'000, 1'001, "gid-2"))
        .add(pg::remove(std::nullopt, orders, 'K', {pg::col::text("1"), pg::col::null(), pg::col::null()}))
        .add(pg::prepare('P', lsn{0x5200}, lsn{0x5240}, 6'000, 1'001, "gid-2"))
        .add(pg::rollback_prepared(lsn{0x5240}, lsn{0x5300}, 6'000, 7'000, 1'001, "gid-2"));
    if (fuzz::protocols[p].streaming != pgoutput_streaming::off) {
      s.add(pg::stream_start(1'002, true))
          .add(pg::insert(1'002, orders, order("7", "g", "7")))
          .add(pg::stream_stop())
          .add(pg::prepare('p', lsn{0x5400}, lsn{0x5440}, 8'000, 1'002, "gid-3"))
          .add(pg::commit_prepared(lsn{0x5500}, lsn{0x5540}, 9'000, 1'002, "gid-3"));
    }
    w.write("pgoutput_stream", "two_phase", s.take());
  }
}

// --- captured sessions -----------------------------------------------------------------------------

auto capture_seeds(corpus_writer& w, const fs::path& dir) -> std::size_t {
#if REPLICANT_FUZZ_HAVE_CAPTURES
  if (dir.empty() || !fs::is_directory(dir)) return 0;
  std::size_t files = 0;
  for (const fs::path& path : pg::list_captures(dir)) {
    const pg::capture c = pg::read_capture(path);
    const auto protocol = c.header.protocol();
    if (!protocol.is_valid()) continue;
    const std::uint8_t p = fuzz::protocol_index(protocol);
    // The stream target gets the whole session (split where it would outgrow a fuzz input); the
    // message target each message, flagged as streamed when the session was inside a stream
    // there; the framing target each CopyData payload as received.
    replicant::pgoutput_reader decoder{protocol};
    std::optional<sequence> session;
    std::size_t session_size = 0;
    const auto flush = [&] {
      if (session) w.write("pgoutput_stream", "capture", session->take());
      session.reset();
      session_size = 0;
    };
    for (const auto& record : c.records) {
      w.write("framing", "capture", record);
      const auto frame = replicant::parse_copy_data(record);
      if (!frame) continue;
      const auto* x = std::get_if<replicant::xlog_data>(&*frame);
      if (x == nullptr || x->data.empty()) continue;
      const bytes payload(x->data.begin(), x->data.end());
      w.write("pgoutput_message", "capture",
              prefixed(static_cast<std::uint8_t>(p | (decoder.in_stream() ? in_stream_bit : 0)), payload));
      static_cast<void>(decoder.decode(payload));
      if (session_size + payload.size() > 16 * 1024) flush();
      if (!session) session.emplace(p);
      session->add(payload);
      session_size += payload.size() + 2;
    }
    flush();
    ++files;
  }
  return files;
#else
  static_cast<void>(w);
  static_cast<void>(dir);
  return 0;
#endif
}

}  // namespace

auto main(int argc, char** argv) -> int {
  if (argc < 3) {
    std::cerr << "usage: replicant_fuzz_seeds <out dir> <roundtrip.tsv> [<capture dir>]\n";
    return 2;
  }
  try {
    corpus_writer w{argv[1]};
    const auto fixtures = read_fixtures(argv[2]);
    cast_seeds(w, fixtures);
    std::vector<bytes> messages = plain_messages();
    for (bytes& m : value_messages(fixtures, std::nullopt)) messages.push_back(std::move(m));
    framing_seeds(w, messages);
    message_seeds(w, fixtures);
    stream_seeds(w);
    const std::size_t captures = capture_seeds(w, argc > 3 ? fs::path{argv[3]} : fs::path{});
    std::cout << "wrote " << w.count() << " seeds (" << fixtures.size() << " casting fixtures, " << captures
              << " captures)\n";
  } catch (const std::exception& e) {
    std::cerr << "replicant_fuzz_seeds: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
