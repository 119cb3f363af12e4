// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Golden tests over real pgoutput traffic: the captures in tests/data/pgoutput/, recorded from
// PostgreSQL 15 to 18 by replicant-record-captures (tests/data/pgoutput/record.cpp). Every XLogData
// payload of a capture goes through a replicant::assembler configured as the recording session
// was, and what comes out must be exactly what the recording's SQL did. The expected values below
// are those of record.cpp's workloads: change the two together, then re-record (README.md there).
#include <replicant/assembler/assembler.hpp>

#include <boost/test/unit_test.hpp>

#include "support/wire/capture_file.hpp"

#include <replicant/core/lsn.hpp>
#include <replicant/decoder/pgoutput_reader.hpp>
#include <replicant/model/value.hpp>
#include <replicant/wire/framing.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

BOOST_AUTO_TEST_SUITE(decoder_captures_tests)

namespace fs = std::filesystem;
using replicant::change_op;
using replicant::old_tuple_kind;
using replicant::result;
using replicant::row;
using replicant::transaction;
using replicant::value;

namespace {

// --- Replaying a capture -----------------------------------------------------------------------

// A non-transactional message, copied: the assembler's views die with the call.
struct lone_message {
  std::string prefix;
  std::vector<std::byte> content;
  replicant::lsn message_lsn;
};

// Everything the assembler reported for one capture, in order, kept alive for the checks.
struct replay {
  fs::path path;
  replicant::test::capture file;
  std::vector<transaction> transactions;
  // One word per event: "txn", "schema:additive", "message", "empty", "prepared:<gid>",
  // "rollback_prepared", "abort:sub" / "abort:top".
  std::vector<std::string> events;
  std::vector<replicant::schema_change> schema_changes;
  std::vector<lone_message> messages;
  std::vector<replicant::stream_abort_event> aborts;
  std::vector<std::pair<replicant::prepared_event, std::string>> prepared;  // the gid, owned
  std::vector<replicant::rollback_prepared_event> rollbacks;
  // The pgoutput message type of every XLogData, in order, and the last keepalive's position.
  std::string message_types;
  replicant::lsn last_keepalive{};
  bool ended_with_keepalive = false;
  bool idle_at_end = false;
};

struct recorder {
  replay* r;
  auto operator()(transaction&& t) -> result<void> {
    r->events.emplace_back("txn");
    r->transactions.push_back(std::move(t));
    return {};
  }
  auto operator()(const replicant::logical_message& m) -> result<void> {
    r->events.emplace_back("message");
    r->messages.push_back({std::string{m.prefix}, {m.content.begin(), m.content.end()}, m.message_lsn});
    return {};
  }
  auto operator()(const replicant::schema_change& c) -> result<void> {
    r->events.push_back("schema:" + std::string{to_string(c.kind)});
    r->schema_changes.push_back(c);
    return {};
  }
  auto operator()(const replicant::empty_commit&) -> result<void> {
    r->events.emplace_back("empty");
    return {};
  }
  auto operator()(const replicant::prepared_event& p) -> result<void> {
    r->events.push_back("prepared:" + std::string{p.gid});
    r->prepared.emplace_back(p, std::string{p.gid});
    return {};
  }
  auto operator()(const replicant::rollback_prepared_event& e) -> result<void> {
    r->events.emplace_back("rollback_prepared");
    r->rollbacks.push_back(e);
    return {};
  }
  auto operator()(const replicant::stream_abort_event& a) -> result<void> {
    r->events.emplace_back(a.subxid == a.xid ? "abort:top" : "abort:sub");
    r->aborts.push_back(a);
    return {};
  }
};

auto replay_capture(const fs::path& path) -> replay {
  replay r;
  r.path = path;
  r.file = replicant::test::read_capture(path);
  if (!r.file.header.protocol().is_valid()) throw std::runtime_error{path.filename().string() + ": invalid protocol"};
  replicant::assembler assembler{r.file.header.protocol()};
  for (std::size_t i = 0; i < r.file.records.size(); ++i) {
    const auto where = path.filename().string() + " record " + std::to_string(i);
    auto frame = replicant::parse_copy_data(r.file.records[i]);
    if (!frame) throw std::runtime_error{where + ": " + frame.error().message()};
    if (const auto* k = std::get_if<replicant::primary_keepalive>(&*frame)) {
      r.last_keepalive = k->wal_end;
      r.ended_with_keepalive = true;
      continue;
    }
    const auto& w = std::get<replicant::xlog_data>(*frame);
    r.ended_with_keepalive = false;
    if (!w.data.empty()) r.message_types += static_cast<char>(w.data[0]);
    if (auto pushed = assembler.push(w.data, recorder{&r}); !pushed) {
      throw std::runtime_error{where + " ('" + std::string(1, static_cast<char>(w.data[0])) +
                               "'): " + pushed.error().message()};
    }
  }
  r.idle_at_end = assembler.idle();
  return r;
}

// Every committed capture, replayed once per test program.
auto all() -> const std::vector<replay>& {
  static const std::vector<replay> replays = [] {
    std::vector<replay> out;
    for (const auto& path : replicant::test::list_captures(fs::path{REPLICANT_TEST_DATA_DIR} / "pgoutput")) {
      out.push_back(replay_capture(path));
    }
    return out;
  }();
  return replays;
}

// The captures of one scenario, checking that the versions every scenario must cover are there.
auto scenario(std::string_view name, std::set<int> required = {15, 18}) -> std::vector<const replay*> {
  std::vector<const replay*> out;
  for (const auto& r : all()) {
    if (r.file.header.scenario == name) {
      out.push_back(&r);
      required.erase(r.file.header.major());
    }
  }
  BOOST_TEST(required.empty(), "scenario " << name << " lacks a capture for some required PostgreSQL major");
  return out;
}

auto label(const replay& r) -> std::string { return r.path.filename().string(); }

// --- Reading rows --------------------------------------------------------------------------------

auto value_of(const row& r, std::string_view column) -> value {
  auto v = r.value(column);
  if (!v) BOOST_FAIL("column " << column << ": " << v.error().message());
  return *std::move(v);
}

// A copy, so that `const auto& x = as<T>(value_of(...))` cannot dangle.
template <class T>
auto as(const value& v) -> T {
  BOOST_TEST_REQUIRE(v.holds<T>(), "value kind " << static_cast<int>(v.kind()));
  return v.get<T>();
}

auto int_of(const row& r, std::string_view column) -> std::int64_t { return as<std::int64_t>(value_of(r, column)); }

auto text_of(const row& r, std::string_view column) -> std::string {
  const value v = value_of(r, column);
  if (v.is_null()) return "<null>";
  return std::string{as<replicant::text>(v).view()};
}

auto chars(std::span<const std::byte> bytes) -> std::string_view {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

auto hex(std::span<const std::byte> bytes) -> std::string {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (const std::byte b : bytes) {
    out += digits[std::to_integer<unsigned>(b) >> 4U];
    out += digits[std::to_integer<unsigned>(b) & 0xFU];
  }
  return out;
}

// The operations of a transaction, one letter each: I, U, D, T.
auto ops(const transaction& t) -> std::string {
  std::string out;
  for (const auto& c : t.changes()) {
    switch (c.op()) {
      case change_op::insert: out += 'I'; break;
      case change_op::update: out += 'U'; break;
      case change_op::delete_: out += 'D'; break;
      case change_op::truncate: out += 'T'; break;
      case change_op::snapshot: out += 'S'; break;
    }
  }
  return out;
}

// The `id` of every insert and update (new row) and delete (old key), in order.
auto ids(const transaction& t) -> std::vector<std::int64_t> {
  std::vector<std::int64_t> out;
  for (const auto& c : t.changes()) {
    if (c.op() == change_op::truncate) continue;
    out.push_back(int_of(c.op() == change_op::delete_ ? c.old() : c.record(), "id"));
  }
  return out;
}

auto range(std::int64_t first, std::int64_t last) -> std::vector<std::int64_t> {
  std::vector<std::int64_t> out;
  for (std::int64_t i = first; i <= last; ++i) out.push_back(i);
  return out;
}

auto concat(std::vector<std::int64_t> a, const std::vector<std::int64_t>& b) -> std::vector<std::int64_t> {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

auto micros(std::int64_t h, std::int64_t m, std::int64_t s, std::int64_t us = 0) -> std::int64_t {
  return ((h * 60 + m) * 60 + s) * 1'000'000 + us;
}

auto check_date(const value& v, std::int64_t year, unsigned month, unsigned day) -> void {
  const auto& d = as<replicant::date>(v);
  BOOST_TEST(d.is_finite());
  BOOST_TEST(d.year() == year);
  BOOST_TEST(d.month() == month);
  BOOST_TEST(d.day() == day);
}

template <class Timestamp>
auto check_timestamp(const value& v, std::int64_t year, unsigned month, unsigned day, std::int64_t time) -> void {
  const auto& t = as<Timestamp>(v);
  BOOST_TEST(t.is_finite());
  BOOST_TEST(t.date_part().year() == year);
  BOOST_TEST(t.date_part().month() == month);
  BOOST_TEST(t.date_part().day() == day);
  BOOST_TEST(t.time_part().micros_since_midnight() == time);
}

auto is_nan(const value& v) -> bool { return std::isnan(as<double>(v)); }

// The 3000-letter TOAST value of the rows scenario, computed as record.cpp's SQL does.
auto toast_text() -> std::string {
  std::string out;
  for (std::int64_t g = 1; g <= 3000; ++g) out += static_cast<char>('a' + (g * 2654435761LL) % 4294967291LL % 26);
  return out;
}

// --- The types scenario: expected values --------------------------------------------------------

// The columns whose value depends on the mode: a domain and an enum are not types replicant
// casts, so text mode delivers their text and binary mode the bytes as sent (docs/casting.md).
const std::set<std::string_view> mode_dependent_columns = {"c_domain", "c_enum"};

auto check_types_row_1(const row& r, bool binary) -> void {
  BOOST_TEST(int_of(r, "id") == 1);
  BOOST_TEST(as<bool>(value_of(r, "c_bool")) == true);
  BOOST_TEST(int_of(r, "c_int2") == -1234);
  BOOST_TEST(int_of(r, "c_int4") == 1234567);
  BOOST_TEST(int_of(r, "c_int8") == 9007199254740993);  // 2^53 + 1: not a double
  BOOST_TEST(int_of(r, "c_oid") == 4000000000);
  BOOST_TEST(as<double>(value_of(r, "c_float4")) == 1.5);
  BOOST_TEST(as<double>(value_of(r, "c_float8")) == 0.1);
  BOOST_TEST(as<replicant::numeric>(value_of(r, "c_numeric")).view() == "12345.6789");
  BOOST_TEST(as<replicant::numeric>(value_of(r, "c_numeric_scaled")).view() == "1.5000");
  BOOST_TEST(as<replicant::numeric>(value_of(r, "c_money")).view() == "1234.56");
  BOOST_TEST(text_of(r, "c_text") == "h\u00e9llo, w\u00f6rld \u2713 \"quoted\" \\back");
  BOOST_TEST(text_of(r, "c_varchar") == "varchar value");
  BOOST_TEST(text_of(r, "c_bpchar") == "ab    ");
  BOOST_TEST(text_of(r, "c_name") == "a_name");
  BOOST_TEST(text_of(r, "c_char") == "x");
  BOOST_TEST(hex(as<replicant::bytea>(value_of(r, "c_bytea")).bytes()) == "00ff10deadbeef");
  BOOST_TEST(to_string(as<replicant::uuid>(value_of(r, "c_uuid"))) == "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
  BOOST_TEST(as<replicant::json>(value_of(r, "c_json")).view() == R"({"k": [1, 2.5, null], "s": "x"})");
  BOOST_TEST(as<replicant::json>(value_of(r, "c_jsonb")).view() == R"({"a": [true, null], "b": 1})");
  check_date(value_of(r, "c_date"), 2024, 2, 29);
  BOOST_TEST(as<replicant::time_of_day>(value_of(r, "c_time")).micros_since_midnight() == micros(13, 14, 15, 123456));
  check_timestamp<replicant::timestamp>(value_of(r, "c_timestamp"), 2024, 2, 29, micros(12, 34, 56, 789012));
  // 12:34:56.789012+02 is 10:34:56.789012 UTC.
  const auto tstz = as<replicant::timestamptz>(value_of(r, "c_timestamptz")).to_sys_time();
  BOOST_TEST_REQUIRE(tstz.has_value());
  BOOST_TEST((*tstz == std::chrono::sys_days{std::chrono::year{2024} / 2 / 29} +
                           std::chrono::microseconds{micros(10, 34, 56, 789012)}));
  BOOST_TEST(text_of(r, "c_interval") == "1 year 2 mons 3 days 04:05:06.789");
  BOOST_TEST(text_of(r, "c_timetz") == "13:14:15.5+05:30");

  // int4[][] {{1,2},{3,NULL}}
  const auto& grid = as<replicant::array>(value_of(r, "c_int4_array"));
  BOOST_TEST(grid.dimensions() == 2U);
  BOOST_TEST_REQUIRE(grid.size() == 2U);
  const auto& first = as<replicant::array>(grid[0]);
  const auto& second = as<replicant::array>(grid[1]);
  BOOST_TEST_REQUIRE(first.size() == 2U);
  BOOST_TEST_REQUIRE(second.size() == 2U);
  BOOST_TEST(as<std::int64_t>(first[0]) == 1);
  BOOST_TEST(as<std::int64_t>(first[1]) == 2);
  BOOST_TEST(as<std::int64_t>(second[0]) == 3);
  BOOST_TEST(second[1].is_null());

  // text[] {"a b",NULL,"NULL","",x,"q\"uote"}: a NULL element and the string "NULL" differ.
  const auto& texts = as<replicant::array>(value_of(r, "c_text_array"));
  BOOST_TEST_REQUIRE(texts.size() == 6U);
  BOOST_TEST(as<replicant::text>(texts[0]).view() == "a b");
  BOOST_TEST(texts[1].is_null());
  BOOST_TEST(as<replicant::text>(texts[2]).view() == "NULL");
  BOOST_TEST(as<replicant::text>(texts[3]).view() == "");
  BOOST_TEST(as<replicant::text>(texts[4]).view() == "x");
  BOOST_TEST(as<replicant::text>(texts[5]).view() == "q\"uote");

  const auto& numerics = as<replicant::array>(value_of(r, "c_numeric_array"));
  BOOST_TEST_REQUIRE(numerics.size() == 3U);
  BOOST_TEST(as<replicant::numeric>(numerics[0]).view() == "1.5");
  BOOST_TEST(as<replicant::numeric>(numerics[1]).is_nan());
  BOOST_TEST(as<replicant::numeric>(numerics[2]).view() == "-0.001");

  const auto& dates = as<replicant::array>(value_of(r, "c_date_array"));
  BOOST_TEST_REQUIRE(dates.size() == 3U);
  check_date(dates[0], 2024, 1, 1);
  BOOST_TEST((as<replicant::date>(dates[1]) == replicant::date::infinity()));
  BOOST_TEST(dates[2].is_null());

  const auto& instants = as<replicant::array>(value_of(r, "c_timestamptz_array"));
  BOOST_TEST_REQUIRE(instants.size() == 2U);
  check_timestamp<replicant::timestamptz>(instants[0], 2024, 1, 1, 0);
  BOOST_TEST((as<replicant::timestamptz>(instants[1]) == replicant::timestamptz::minus_infinity()));

  const auto& uuids = as<replicant::array>(value_of(r, "c_uuid_array"));
  BOOST_TEST_REQUIRE(uuids.size() == 2U);
  BOOST_TEST(to_string(as<replicant::uuid>(uuids[0])) == "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
  BOOST_TEST(uuids[1].is_null());

  const auto& bools = as<replicant::array>(value_of(r, "c_bool_array"));
  BOOST_TEST_REQUIRE(bools.size() == 3U);
  BOOST_TEST(as<bool>(bools[0]) == true);
  BOOST_TEST(as<bool>(bools[1]) == false);
  BOOST_TEST(bools[2].is_null());

  const auto& doubles = as<replicant::array>(value_of(r, "c_float8_array"));
  BOOST_TEST_REQUIRE(doubles.size() == 3U);
  BOOST_TEST(as<double>(doubles[0]) == 1.25);
  BOOST_TEST(is_nan(doubles[1]));
  BOOST_TEST(as<double>(doubles[2]) == -std::numeric_limits<double>::infinity());

  const auto& blobs = as<replicant::array>(value_of(r, "c_bytea_array"));
  BOOST_TEST_REQUIRE(blobs.size() == 2U);
  BOOST_TEST(hex(as<replicant::bytea>(blobs[0]).bytes()) == "01ff");
  BOOST_TEST(blobs[1].is_null());

  const auto& intervals = as<replicant::array>(value_of(r, "c_interval_array"));
  BOOST_TEST_REQUIRE(intervals.size() == 2U);
  BOOST_TEST(as<replicant::text>(intervals[0]).view() == "1 day");
  BOOST_TEST(as<replicant::text>(intervals[1]).view() == "-00:00:01");

  if (binary) {
    BOOST_TEST(hex(as<replicant::bytea>(value_of(r, "c_domain")).bytes()) == "0000002a");
    BOOST_TEST(hex(as<replicant::bytea>(value_of(r, "c_enum")).bytes()) == hex(std::as_bytes(std::span{"happy", 5})));
  } else {
    BOOST_TEST(text_of(r, "c_domain") == "42");
    BOOST_TEST(text_of(r, "c_enum") == "happy");
  }
}

auto check_types_row_2(const row& r, bool binary) -> void {
  BOOST_TEST(int_of(r, "id") == 2);
  BOOST_TEST(as<bool>(value_of(r, "c_bool")) == false);
  BOOST_TEST(int_of(r, "c_int2") == -32768);
  BOOST_TEST(int_of(r, "c_int4") == 2147483647);
  BOOST_TEST(int_of(r, "c_int8") == std::numeric_limits<std::int64_t>::min());
  BOOST_TEST(int_of(r, "c_oid") == 4294967295);
  BOOST_TEST(is_nan(value_of(r, "c_float4")));
  BOOST_TEST(as<double>(value_of(r, "c_float8")) == std::numeric_limits<double>::infinity());
  BOOST_TEST(as<replicant::numeric>(value_of(r, "c_numeric")).is_nan());
  BOOST_TEST(as<replicant::numeric>(value_of(r, "c_numeric_scaled")).view() == "-99999999.9999");
  BOOST_TEST(as<replicant::numeric>(value_of(r, "c_money")).view() == "-92233720368547758.08");
  BOOST_TEST(text_of(r, "c_text") == "");  // empty, not NULL
  BOOST_TEST(text_of(r, "c_varchar") == "exactly twenty chars");
  BOOST_TEST(text_of(r, "c_bpchar") == "abcdef");
  BOOST_TEST(text_of(r, "c_name") == "Name With Spaces");
  BOOST_TEST(text_of(r, "c_char") == "Z");
  BOOST_TEST(as<replicant::bytea>(value_of(r, "c_bytea")).empty());
  BOOST_TEST(to_string(as<replicant::uuid>(value_of(r, "c_uuid"))) == "00000000-0000-0000-0000-000000000000");
  BOOST_TEST(as<replicant::json>(value_of(r, "c_json")).view() == "[]");
  BOOST_TEST(as<replicant::json>(value_of(r, "c_jsonb")).view() == "\"str\"");
  check_date(value_of(r, "c_date"), -43, 3, 15);  // 44 BC: astronomical year -43
  BOOST_TEST(as<replicant::time_of_day>(value_of(r, "c_time")).micros_since_midnight() == micros(24, 0, 0));
  BOOST_TEST((as<replicant::timestamp>(value_of(r, "c_timestamp")) == replicant::timestamp::infinity()));
  BOOST_TEST((as<replicant::timestamptz>(value_of(r, "c_timestamptz")) == replicant::timestamptz::minus_infinity()));
  BOOST_TEST(text_of(r, "c_interval") == "-1 days +02:00:00");
  BOOST_TEST(text_of(r, "c_timetz") == "23:59:59.999999-15:59");

  const auto& empty = as<replicant::array>(value_of(r, "c_int4_array"));
  BOOST_TEST(empty.empty());
  BOOST_TEST(empty.dimensions() == 0U);

  // text[][] {{a,b},{NULL,"c d"}}
  const auto& grid = as<replicant::array>(value_of(r, "c_text_array"));
  BOOST_TEST(grid.dimensions() == 2U);
  BOOST_TEST_REQUIRE(grid.size() == 2U);
  const auto& top = as<replicant::array>(grid[0]);
  const auto& bottom = as<replicant::array>(grid[1]);
  BOOST_TEST_REQUIRE(top.size() == 2U);
  BOOST_TEST_REQUIRE(bottom.size() == 2U);
  BOOST_TEST(as<replicant::text>(top[0]).view() == "a");
  BOOST_TEST(as<replicant::text>(top[1]).view() == "b");
  BOOST_TEST(bottom[0].is_null());
  BOOST_TEST(as<replicant::text>(bottom[1]).view() == "c d");

  const auto& numerics = as<replicant::array>(value_of(r, "c_numeric_array"));
  BOOST_TEST_REQUIRE(numerics.size() == 2U);
  BOOST_TEST(as<replicant::numeric>(numerics[0]).view() == "1234567890123456789012345678901234567890");
  BOOST_TEST(as<replicant::numeric>(numerics[1]).view() == "-Infinity");

  const auto& dates = as<replicant::array>(value_of(r, "c_date_array"));
  BOOST_TEST_REQUIRE(dates.size() == 1U);
  BOOST_TEST((as<replicant::date>(dates[0]) == replicant::date::minus_infinity()));

  for (const auto* column :
       {"c_timestamptz_array", "c_uuid_array", "c_bool_array", "c_bytea_array", "c_interval_array"}) {
    BOOST_TEST(as<replicant::array>(value_of(r, column)).empty(), column);
  }
  const auto& doubles = as<replicant::array>(value_of(r, "c_float8_array"));
  BOOST_TEST_REQUIRE(doubles.size() == 2U);
  BOOST_TEST(as<double>(doubles[0]) == 0.0);
  BOOST_TEST(std::signbit(as<double>(doubles[0])));  // -0
  BOOST_TEST(as<double>(doubles[1]) == std::numeric_limits<double>::infinity());

  if (binary) {
    BOOST_TEST(hex(as<replicant::bytea>(value_of(r, "c_domain")).bytes()) == "00000001");
    BOOST_TEST(hex(as<replicant::bytea>(value_of(r, "c_enum")).bytes()) == "736164");  // "sad"
  } else {
    BOOST_TEST(text_of(r, "c_domain") == "1");
    BOOST_TEST(text_of(r, "c_enum") == "sad");
  }
}

auto check_types_row_3(const row& r) -> void {
  BOOST_TEST(int_of(r, "id") == 3);
  BOOST_TEST(value_of(r, "c_bool").is_null());
  BOOST_TEST(int_of(r, "c_int2") == 32767);
  BOOST_TEST(int_of(r, "c_int4") == -2147483648);
  BOOST_TEST(int_of(r, "c_int8") == std::numeric_limits<std::int64_t>::max());
  BOOST_TEST(int_of(r, "c_oid") == 0);
  BOOST_TEST(as<double>(value_of(r, "c_float4")) == -std::numeric_limits<double>::infinity());
  BOOST_TEST(as<double>(value_of(r, "c_float8")) == 0.0);
  BOOST_TEST(std::signbit(as<double>(value_of(r, "c_float8"))));
  const auto& forty = as<replicant::numeric>(value_of(r, "c_numeric"));
  BOOST_TEST(forty.view() == "1234567890123456789012345678901234567890.0123456789");
  BOOST_TEST(forty.scale() == 10U);
  BOOST_TEST(as<replicant::numeric>(value_of(r, "c_numeric_scaled")).view() == "0.0000");
  BOOST_TEST(as<replicant::numeric>(value_of(r, "c_money")).view() == "0.00");
  BOOST_TEST(text_of(r, "c_text") == "line\nbreak\ttab");
  for (const auto* column : {"c_varchar", "c_bpchar", "c_name", "c_char", "c_bytea", "c_uuid"}) {
    BOOST_TEST(value_of(r, column).is_null(), column);
  }
  // JSON null is a value, not SQL NULL.
  BOOST_TEST(as<replicant::json>(value_of(r, "c_json")).view() == "null");
  BOOST_TEST(as<replicant::json>(value_of(r, "c_jsonb")).view() == "null");
  BOOST_TEST((as<replicant::date>(value_of(r, "c_date")) == replicant::date::minus_infinity()));
  BOOST_TEST(as<replicant::time_of_day>(value_of(r, "c_time")).micros_since_midnight() == 0);
  check_timestamp<replicant::timestamp>(value_of(r, "c_timestamp"), -4712, 1, 1, 0);  // 4713 BC
  BOOST_TEST((as<replicant::timestamptz>(value_of(r, "c_timestamptz")) == replicant::timestamptz::infinity()));
  BOOST_TEST(text_of(r, "c_interval") == "00:00:00");
  BOOST_TEST(text_of(r, "c_timetz") == "00:00:00+00");
  const auto& numerics = as<replicant::array>(value_of(r, "c_numeric_array"));
  BOOST_TEST_REQUIRE(numerics.size() == 1U);
  BOOST_TEST(as<replicant::numeric>(numerics[0]).view() == "Infinity");
  for (const auto* column :
       {"c_int4_array", "c_text_array", "c_date_array", "c_timestamptz_array", "c_uuid_array", "c_bool_array",
        "c_float8_array", "c_bytea_array", "c_interval_array", "c_domain", "c_enum"}) {
    BOOST_TEST(value_of(r, column).is_null(), column);
  }
}

auto check_types_rows_4_and_5(const row& four, const row& five) -> void {
  BOOST_TEST(int_of(four, "id") == 4);
  BOOST_TEST(as<replicant::numeric>(value_of(four, "c_numeric")).view() == "Infinity");
  BOOST_TEST(as<replicant::numeric>(value_of(four, "c_numeric")).is_infinite());
  BOOST_TEST(int_of(five, "id") == 5);
  for (const replicant::field f : four) {
    if (f.name() != "id" && f.name() != "c_numeric") BOOST_TEST(f.is_null(), f.name());
  }
  for (const replicant::field f : five) {
    if (f.name() != "id") BOOST_TEST(f.is_null(), f.name());
  }
}

auto only_transaction(const replay& r) -> const transaction& {
  BOOST_TEST_REQUIRE(r.transactions.size() == 1U);
  return r.transactions.front();
}

}  // namespace

// --- Every capture --------------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(captures)

BOOST_AUTO_TEST_CASE(every_capture_replays_through_the_assembler) {
  BOOST_TEST_REQUIRE(!all().empty(), "no captures in tests/data/pgoutput");
  for (const auto& r : all()) {
    BOOST_TEST_CONTEXT(label(r)) {
      const auto& h = r.file.header;
      // The name says what the header says.
      BOOST_TEST(label(r) == h.scenario + ".pg" + std::to_string(h.major()) + ".capture");
      BOOST_TEST(h.major() >= 15);
      BOOST_TEST(h.proto_version == (h.major() >= 16 ? 4U : 3U));
      BOOST_TEST(r.idle_at_end, "a transaction was left open, streamed or prepared");
      // The recording ended on a keepalive at or past its end position.
      BOOST_TEST(r.ended_with_keepalive);
      BOOST_TEST(r.last_keepalive >= h.end_lsn);
      BOOST_TEST(!r.transactions.empty());
      replicant::lsn previous{};
      for (const auto& t : r.transactions) {
        BOOST_TEST(t.commit_lsn() > previous, "commit LSNs strictly increase");
        BOOST_TEST(t.end_lsn() > t.commit_lsn());
        BOOST_TEST(t.end_lsn() <= h.end_lsn);
        BOOST_TEST(!t.empty());
        BOOST_TEST(t.xid() != 0U);
        previous = t.commit_lsn();
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(every_message_type_is_covered) {
  std::map<int, std::set<char>> seen;  // by major
  for (const auto& r : all()) {
    seen[r.file.header.major()].insert(r.message_types.begin(), r.message_types.end());
  }
  // Every type of the catalog (PROTOCOL.md §2.2), each from a real server, on the oldest and the
  // newest supported major.
  for (const int major : {15, 18}) {
    for (const char type : std::string_view{"BCORYIUDTMSEcAbPKrp"}) {
      BOOST_TEST(seen[major].count(type) == 1U, "message type '" << type << "' on PostgreSQL " << major);
    }
  }
}

// --- types / types_binary -------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(types_decode_to_exact_values_in_text_and_binary_mode) {
  for (const std::string_view name : {"types", "types_binary"}) {
    for (const auto* r : scenario(name)) {
      BOOST_TEST_CONTEXT(label(*r)) {
        const bool binary = name == "types_binary";
        BOOST_TEST(r->file.header.binary == binary);
        // A domain and an enum are described ('Y') before the relation.
        BOOST_TEST(r->message_types == "BYYRIIIIIC");
        const auto& t = only_transaction(*r);
        BOOST_TEST(ops(t) == "IIIII");
        const auto& rel = t.changes().begin()->relation();
        BOOST_TEST(rel.table == "types");
        BOOST_TEST(rel.schema == "public");
        BOOST_TEST(rel.columns.size() == 38U);
        std::vector<row> rows;
        for (const auto& c : t.changes()) rows.push_back(c.record());
        check_types_row_1(rows[0], binary);
        check_types_row_2(rows[1], binary);
        check_types_row_3(rows[2]);
        check_types_rows_4_and_5(rows[3], rows[4]);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(text_and_binary_mode_yield_equal_values) {
  const auto text_captures = scenario("types");
  const auto binary_captures = scenario("types_binary");
  for (const auto* text_capture : text_captures) {
    const auto match = std::find_if(binary_captures.begin(), binary_captures.end(), [&](const replay* b) {
      return b->file.header.major() == text_capture->file.header.major();
    });
    BOOST_TEST_REQUIRE((match != binary_captures.end()), "no binary capture for " << label(*text_capture));
    BOOST_TEST_CONTEXT(label(*text_capture) << " vs " << label(**match)) {
      const auto& text_txn = only_transaction(*text_capture);
      const auto& binary_txn = only_transaction(**match);
      BOOST_TEST_REQUIRE(text_txn.change_count() == binary_txn.change_count());
      auto b = binary_txn.changes().begin();
      std::size_t compared = 0;
      for (const auto& a : text_txn.changes()) {
        const row text_row = a.record();
        const row binary_row = (b++)->record();
        for (const replicant::field f : text_row) {
          if (mode_dependent_columns.count(f.name()) != 0) continue;
          BOOST_TEST_CONTEXT("row " << int_of(text_row, "id") << " column " << f.name()) {
            BOOST_TEST((f.raw().kind == replicant::column_kind::text || f.is_null()));
            const auto other = binary_row.find(f.name());
            BOOST_TEST_REQUIRE(other.has_value());
            BOOST_TEST((other->raw().kind == replicant::column_kind::binary || other->is_null()));
            const value x = value_of(text_row, f.name());
            const value y = value_of(binary_row, f.name());
            BOOST_TEST((x == y));
            // PostgreSQL equality is lenient (1.5 = 1.50); the renderings must match exactly too.
            BOOST_TEST(to_string(x) == to_string(y));
            ++compared;
          }
        }
      }
      BOOST_TEST(compared == 5U * 36U);
    }
  }
}

// --- rows: updates, deletes, replica identity, unchanged TOAST, origin -----------------------------

BOOST_AUTO_TEST_CASE(rows_keep_old_tuples_unchanged_toast_and_origin) {
  const std::string big = toast_text();
  BOOST_TEST(big.substr(0, 10) == "dpseqtfiug");  // the value record.cpp's SQL produced
  for (const auto* r : scenario("rows")) {
    BOOST_TEST_CONTEXT(label(*r)) {
      const auto& ts = r->transactions;
      BOOST_TEST_REQUIRE(ts.size() == 9U);
      BOOST_TEST(r->schema_changes.empty());
      const std::vector<std::string> expected_ops = {"I", "U", "U", "II", "U", "D", "D", "I", "IIUD"};
      for (std::size_t i = 0; i < ts.size(); ++i) BOOST_TEST(ops(ts[i]) == expected_ops[i], "transaction " << i);

      // 1: the insert carries the whole TOASTed value.
      const auto& insert = *ts[0].changes().begin();
      BOOST_TEST(insert.relation().table == "plain");
      BOOST_TEST((insert.relation().identity == replicant::replica_identity::default_key));
      BOOST_TEST(text_of(insert.record(), "note") == "first");
      BOOST_TEST(text_of(insert.record(), "big") == big);
      BOOST_TEST(insert.unchanged().empty());

      // 2: an update that changed no key: no old tuple; big unchanged, so not sent.
      const auto& update = *ts[1].changes().begin();
      BOOST_TEST((update.old_kind() == old_tuple_kind::none));
      BOOST_TEST(update.old().empty());
      BOOST_TEST(int_of(update.record(), "id") == 1);
      BOOST_TEST(text_of(update.record(), "note") == "second");
      BOOST_TEST((update.unchanged() == std::vector<std::string_view>{"big"}));
      BOOST_TEST(update.record().find("big")->is_unchanged());
      BOOST_TEST(update.record().value("big").error() == replicant::errc::column_unchanged);

      // 3: the key changed: the old key comes along, other columns NULL.
      const auto& rekey = *ts[2].changes().begin();
      BOOST_TEST((rekey.old_kind() == old_tuple_kind::key));
      BOOST_TEST(int_of(rekey.old(), "id") == 1);
      BOOST_TEST(value_of(rekey.old(), "note").is_null());
      BOOST_TEST(value_of(rekey.old(), "big").is_null());
      BOOST_TEST(int_of(rekey.record(), "id") == 2);
      BOOST_TEST((rekey.unchanged() == std::vector<std::string_view>{"big"}));

      // 4-6: REPLICA IDENTITY FULL: every column is a key column, old rows are whole.
      const auto& full_rel = ts[3].changes().begin()->relation();
      BOOST_TEST(full_rel.table == "full_identity");
      BOOST_TEST((full_rel.identity == replicant::replica_identity::full));
      BOOST_TEST(std::all_of(full_rel.columns.begin(), full_rel.columns.end(), [](const auto& c) { return c.key; }));
      BOOST_TEST(ids(ts[3]) == (std::vector<std::int64_t>{10, 11}));
      const auto& full_update = *ts[4].changes().begin();
      BOOST_TEST((full_update.old_kind() == old_tuple_kind::full));
      BOOST_TEST(int_of(full_update.old(), "id") == 10);
      BOOST_TEST(text_of(full_update.old(), "note") == "full");
      // The old row is flattened: the TOASTed value is in it, never 'unchanged'.
      BOOST_TEST(text_of(full_update.old(), "big") == big);
      BOOST_TEST(text_of(full_update.record(), "note") == "full, updated");
      BOOST_TEST((full_update.unchanged() == std::vector<std::string_view>{"big"}));
      const auto& full_delete = *ts[5].changes().begin();
      BOOST_TEST((full_delete.old_kind() == old_tuple_kind::full));
      BOOST_TEST(full_delete.record().empty());
      BOOST_TEST(int_of(full_delete.old(), "id") == 11);
      BOOST_TEST(text_of(full_delete.old(), "note") == "full too");
      BOOST_TEST(text_of(full_delete.old(), "big") == "small");

      // 7: a delete under the default identity: the key only.
      const auto& key_delete = *ts[6].changes().begin();
      BOOST_TEST((key_delete.old_kind() == old_tuple_kind::key));
      BOOST_TEST(int_of(key_delete.old(), "id") == 2);
      BOOST_TEST(value_of(key_delete.old(), "note").is_null());

      // 8: the transaction replayed through a replication origin.
      BOOST_TEST_REQUIRE(ts[7].origin().has_value());
      BOOST_TEST(ts[7].origin()->name == "capture_origin");
      BOOST_TEST(ts[7].origin()->origin_lsn == replicant::parse_lsn("0/ABCDEF0").value());
      // Its commit time is the origin's (pg_replication_origin_xact_setup).
      BOOST_TEST(
          (ts[7].commit_time() == std::chrono::sys_days{std::chrono::year{2024} / 2 / 29} + std::chrono::hours{12}));
      for (std::size_t i = 0; i < ts.size(); ++i) {
        if (i != 7) BOOST_TEST(!ts[i].origin().has_value(), "transaction " << i);
      }
      BOOST_TEST(text_of(ts[7].changes().begin()->record(), "note") == "from an origin");

      // 9: four changes on two tables, in order.
      BOOST_TEST(ids(ts[8]) == (std::vector<std::int64_t>{4, 12, 4, 3}));
      std::vector<std::string> tables;
      for (const auto& c : ts[8].changes()) tables.push_back(c.relation().table);
      BOOST_TEST(tables == (std::vector<std::string>{"plain", "full_identity", "plain", "plain"}));
      const auto& mixed_update = *std::next(ts[8].changes().begin(), 2);
      BOOST_TEST(text_of(mixed_update.record(), "note") == "mixed, updated");
      BOOST_TEST(value_of(mixed_update.record(), "big").is_null());  // NULL is never TOASTed
      BOOST_TEST(mixed_update.unchanged().empty());
    }
  }
}

// --- truncate --------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(truncate_carries_its_flags_per_relation) {
  for (const auto* r : scenario("truncate")) {
    BOOST_TEST_CONTEXT(label(*r)) {
      const auto& ts = r->transactions;
      BOOST_TEST_REQUIRE(ts.size() == 7U);
      const std::vector<std::string> expected_ops = {"II", "I", "I", "TT", "I", "T", "ITTI"};
      for (std::size_t i = 0; i < ts.size(); ++i) BOOST_TEST(ops(ts[i]) == expected_ops[i], "transaction " << i);
      // TRUNCATE re-describes the relations, identically: no schema change.
      BOOST_TEST(r->schema_changes.empty());

      // TRUNCATE parent RESTART IDENTITY CASCADE: parent, and child through the cascade.
      std::vector<std::string> tables;
      for (const auto& c : ts[3].changes()) {
        tables.push_back(c.relation().table);
        BOOST_TEST(c.truncate_cascade());
        BOOST_TEST(c.truncate_restart_identity());
        BOOST_TEST(c.record().empty());
        BOOST_TEST(c.old().empty());
      }
      BOOST_TEST(tables == (std::vector<std::string>{"parent", "child"}));
      // The identity restarted.
      BOOST_TEST(int_of(ts[4].changes().begin()->record(), "id") == 1);
      BOOST_TEST(text_of(ts[4].changes().begin()->record(), "note") == "after restart");

      const auto& plain = *ts[5].changes().begin();
      BOOST_TEST(plain.relation().table == "other");
      BOOST_TEST(!plain.truncate_cascade());
      BOOST_TEST(!plain.truncate_restart_identity());

      // Inside a transaction, between inserts; TRUNCATE other, child lists both.
      tables.clear();
      for (const auto& c : ts[6].changes()) {
        tables.push_back(c.relation().table);
        if (c.op() == change_op::truncate) BOOST_TEST((!c.truncate_cascade() && !c.truncate_restart_identity()));
      }
      BOOST_TEST(tables == (std::vector<std::string>{"other", "other", "child", "other"}));
      BOOST_TEST(ids(ts[6]) == (std::vector<std::int64_t>{2, 3}));
    }
  }
}

// --- ddl ----------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(ddl_reports_schema_changes_where_they_happen) {
  using replicant::column_change;
  using replicant::column_change_kind;
  for (const auto* r : scenario("ddl")) {
    BOOST_TEST_CONTEXT(label(*r)) {
      // Each schema change is reported when its Relation message arrives: before the
      // transaction that first uses the new shape, which is delivered at its commit.
      // int4 to int8 is a widening: additive, like the added columns.
      BOOST_TEST(r->events == (std::vector<std::string>{"txn", "schema:additive", "txn", "schema:destructive", "txn",
                                                        "schema:additive", "txn", "schema:additive", "txn", "txn"}));
      BOOST_TEST_REQUIRE(r->schema_changes.size() == 4U);
      for (const auto& c : r->schema_changes) BOOST_TEST(c.table == "evolving");
      BOOST_TEST((r->schema_changes[0].changes == std::vector<column_change>{{column_change_kind::added, "c"}}));
      BOOST_TEST((r->schema_changes[1].changes == std::vector<column_change>{{column_change_kind::dropped, "a"}}));
      BOOST_TEST((r->schema_changes[2].changes == std::vector<column_change>{{column_change_kind::type_widened, "b"}}));
      BOOST_TEST((r->schema_changes[3].changes == std::vector<column_change>{{column_change_kind::added, "d"}}));

      const auto& ts = r->transactions;
      BOOST_TEST_REQUIRE(ts.size() == 6U);
      const auto first_row = [](const transaction& t) { return t.changes().begin()->record(); };
      BOOST_TEST(first_row(ts[0]).size() == 3U);
      BOOST_TEST(text_of(first_row(ts[0]), "a") == "one");
      BOOST_TEST(text_of(first_row(ts[1]), "c") == "added c");
      BOOST_TEST(!first_row(ts[2]).find("a").has_value());
      BOOST_TEST(int_of(first_row(ts[3]), "b") == 4000000000);
      BOOST_TEST(ts[3].changes().begin()->relation().columns[1].type_oid == 20U);  // int8 now
      // The DDL between two changes of one transaction: each row has the shape it was written with.
      BOOST_TEST(ids(ts[4]) == (std::vector<std::int64_t>{5, 6}));
      const row before = ts[4].changes().begin()->record();
      const row after = std::next(ts[4].changes().begin())->record();
      BOOST_TEST(before.size() == 3U);
      BOOST_TEST(after.size() == 4U);
      BOOST_TEST(int_of(after, "d") == 8);
      // A row written before d existed is read with d's default.
      const auto& update = *ts[5].changes().begin();
      BOOST_TEST((update.op() == change_op::update));
      BOOST_TEST(int_of(update.record(), "id") == 1);
      BOOST_TEST(text_of(update.record(), "c") == "updated");
      BOOST_TEST(int_of(update.record(), "d") == 7);
    }
  }
}

// --- messages -----------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(messages_ride_their_transaction_or_stand_alone) {
  for (const auto* r : scenario("messages")) {
    BOOST_TEST_CONTEXT(label(*r)) {
      BOOST_TEST(r->events == (std::vector<std::string>{"txn", "message", "txn", "message", "txn"}));
      const auto& ts = r->transactions;
      BOOST_TEST_REQUIRE(ts.size() == 3U);

      BOOST_TEST(ids(ts[0]) == (std::vector<std::int64_t>{1}));
      BOOST_TEST_REQUIRE(ts[0].messages().size() == 1U);
      const auto& inside = ts[0].messages()[0];
      BOOST_TEST(inside.transactional);
      BOOST_TEST(inside.prefix == "capture.tx");
      BOOST_TEST(chars(inside.content) == "inside the transaction");

      // A transaction holding nothing but a message is still delivered.
      BOOST_TEST(ts[1].change_count() == 0U);
      BOOST_TEST_REQUIRE(ts[1].messages().size() == 1U);
      BOOST_TEST(ts[1].messages()[0].prefix == "capture.only");
      BOOST_TEST(chars(ts[1].messages()[0].content) == "the only content of its transaction");

      // Non-transactional ones stand alone, raw bytes included; one was emitted by a transaction
      // that rolled back, whose transactional message and row are gone.
      BOOST_TEST_REQUIRE(r->messages.size() == 2U);
      BOOST_TEST(r->messages[0].prefix == "capture.alone");
      BOOST_TEST(hex(r->messages[0].content) == "00ff00fe");
      BOOST_TEST(r->messages[1].prefix == "capture.despite_rollback");
      BOOST_TEST(chars(r->messages[1].content) == "delivered although rolled back");
      BOOST_TEST(r->messages[0].message_lsn < r->messages[1].message_lsn);
      // The message's LSN is the end of its record, which precedes its transaction's commit record.
      BOOST_TEST(inside.message_lsn.is_valid());
      BOOST_TEST(inside.message_lsn <= ts[0].commit_lsn());

      BOOST_TEST(ids(ts[2]) == (std::vector<std::int64_t>{3}));
      BOOST_TEST(ts[2].messages().empty());
    }
  }
}

// --- streaming ----------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(streamed_transactions_keep_exactly_what_survived) {
  for (const std::string_view name : {"streaming", "streaming_parallel"}) {
    const std::set<int> required = name == "streaming" ? std::set<int>{15, 18} : std::set<int>{16, 18};
    for (const auto* r : scenario(name, required)) {
      BOOST_TEST_CONTEXT(label(*r)) {
        const bool parallel = name == "streaming_parallel";
        BOOST_TEST((r->file.header.streaming ==
                    (parallel ? replicant::pgoutput_streaming::parallel : replicant::pgoutput_streaming::on)));
        // PostgreSQL 18 does not stream a transaction it already knows to have aborted, and the
        // captures decode after the fact: the whole-transaction abort shows up on 15-17 only.
        const bool top_level_abort = r->file.header.major() < 18;
        std::vector<std::string> expected{"abort:sub", "txn"};
        if (top_level_abort) expected.emplace_back("abort:top");
        expected.emplace_back("txn");
        BOOST_TEST(r->events == expected);

        // The subtransaction's five rows were streamed, then dropped by its Stream Abort.
        BOOST_TEST_REQUIRE(!r->aborts.empty());
        BOOST_TEST(r->aborts[0].subxid != r->aborts[0].xid);
        BOOST_TEST(r->aborts[0].dropped_changes == 5U);
        if (top_level_abort) {
          BOOST_TEST_REQUIRE(r->aborts.size() == 2U);
          BOOST_TEST(r->aborts[1].dropped_changes == 3U);
        }

        const auto& ts = r->transactions;
        BOOST_TEST_REQUIRE(ts.size() == 2U);
        const auto& streamed = ts[0];
        BOOST_TEST(streamed.xid() == r->aborts[0].xid);
        // Exactly the surviving rows, in order: before the savepoint, after the rollback to it,
        // and the released subtransaction's.
        BOOST_TEST(ids(streamed) == concat(concat(range(1, 5), range(2001, 2010)), {3001}));
        // The message in the aborted subtransaction after its first change is dropped with it.
        // The one before that change survives: inside a stream pgoutput labels messages with the
        // top-level xid, so nothing on the wire ties it to the subtransaction.
        std::vector<std::string_view> prefixes;
        for (const auto& m : streamed.messages()) prefixes.push_back(m.prefix);
        BOOST_TEST(prefixes == (std::vector<std::string_view>{"capture.kept", "capture.unattributable"}));
        BOOST_TEST(ids(ts[1]) == (std::vector<std::int64_t>{4001}));

        // The abort information is on the wire exactly with streaming = parallel.
        replicant::pgoutput_reader decoder{r->file.header.protocol()};
        std::size_t aborts = 0;
        for (const auto& record : r->file.records) {
          const auto frame = replicant::parse_copy_data(record);
          const auto* w = std::get_if<replicant::xlog_data>(&*frame);
          if (w == nullptr) continue;
          const auto m = decoder.decode(w->data);
          BOOST_TEST_REQUIRE(m.has_value());
          if (const auto* a = std::get_if<replicant::pgoutput::stream_abort_message>(&*m)) {
            ++aborts;
            BOOST_TEST(a->has_abort_info == parallel);
            if (parallel) {
              // The subtransaction aborted before its transaction committed, the other one after.
              BOOST_TEST(a->abort_lsn.is_valid());
              BOOST_TEST((a->subxid != a->xid) == (a->abort_lsn < streamed.commit_lsn()));
            }
          }
        }
        BOOST_TEST(aborts == r->aborts.size());
      }
    }
  }
}

// --- two_phase ----------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(prepared_transactions_are_delivered_on_commit_prepared_only) {
  for (const auto* r : scenario("two_phase")) {
    BOOST_TEST_CONTEXT(label(*r)) {
      BOOST_TEST(r->file.header.two_phase);
      BOOST_TEST(r->events ==
                 (std::vector<std::string>{"prepared:capture-commit", "txn", "txn", "prepared:capture-rollback",
                                           "rollback_prepared", "prepared:capture-streamed", "txn", "txn"}));
      const auto& ts = r->transactions;
      BOOST_TEST_REQUIRE(ts.size() == 4U);
      // Committed while the first was prepared, so delivered before it (commit order).
      BOOST_TEST(ids(ts[0]) == (std::vector<std::int64_t>{2}));
      BOOST_TEST(ids(ts[1]) == (std::vector<std::int64_t>{1}));
      BOOST_TEST(text_of(ts[1].changes().begin()->record(), "note") == "prepared, then committed");
      BOOST_TEST_REQUIRE(r->prepared.size() == 3U);
      BOOST_TEST(ts[1].xid() == r->prepared[0].first.xid);
      BOOST_TEST(r->prepared[0].first.change_count == 1U);
      BOOST_TEST(r->prepared[0].first.end_lsn > r->prepared[0].first.prepare_lsn);
      BOOST_TEST(ts[1].commit_lsn() > r->prepared[0].first.end_lsn);
      // The rolled-back one is never delivered.
      BOOST_TEST_REQUIRE(r->rollbacks.size() == 1U);
      BOOST_TEST(r->rollbacks[0].xid == r->prepared[1].first.xid);
      BOOST_TEST(r->prepared[1].second == "capture-rollback");
      // The streamed one (Stream Prepare 'p') is delivered whole at its Commit Prepared.
      BOOST_TEST(r->message_types.find('p') != std::string::npos);
      BOOST_TEST(r->prepared[2].second == "capture-streamed");
      BOOST_TEST(r->prepared[2].first.change_count == 5U);
      BOOST_TEST(ts[2].xid() == r->prepared[2].first.xid);
      BOOST_TEST(ids(ts[2]) == range(1001, 1005));
      BOOST_TEST(text_of(ts[2].changes().begin()->record(), "note") == "streamed");
      BOOST_TEST(ids(ts[3]) == (std::vector<std::int64_t>{4}));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

// --- The file format -------------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(capture_file)

BOOST_AUTO_TEST_CASE(round_trips_and_rejects_damage) {
  replicant::test::capture c;
  c.header = replicant::test::describe_options(
      "proto_version '4', publication_names '\"p\"', streaming 'parallel', "
      "binary 'true', \"messages\" 'on', two_phase");
  c.header.scenario = "unit";
  c.header.server_version_num = 180004;
  c.header.end_lsn = replicant::parse_lsn("0/1A2B3C8").value();
  c.records = {{std::byte{'k'}, std::byte{1}}, {}, {std::byte{'w'}}};
  BOOST_TEST(c.header.proto_version == 4U);
  BOOST_TEST((c.header.streaming == replicant::pgoutput_streaming::parallel));
  BOOST_TEST(c.header.binary);
  BOOST_TEST(c.header.messages);
  BOOST_TEST(c.header.two_phase);  // a missing value means true

  const std::string bytes = replicant::test::serialize_capture(c);
  const auto as_span = [](const std::string& s) { return std::as_bytes(std::span{s.data(), s.size()}); };
  const auto back = replicant::test::parse_capture(as_span(bytes));
  BOOST_TEST(back.header.scenario == "unit");
  BOOST_TEST(back.header.major() == 18);
  BOOST_TEST(back.header.options == c.header.options);
  BOOST_TEST(back.header.end_lsn == c.header.end_lsn);
  BOOST_TEST(back.records == c.records);

  using replicant::test::capture_format_error;
  BOOST_CHECK_THROW(static_cast<void>(replicant::test::parse_capture(as_span(bytes.substr(0, bytes.size() - 1)))),
                    capture_format_error);
  BOOST_CHECK_THROW(static_cast<void>(replicant::test::parse_capture(as_span("x" + bytes))), capture_format_error);
  std::string lying = bytes;
  lying.replace(lying.find("binary: true"), 12, "binary: fals");
  BOOST_CHECK_THROW(static_cast<void>(replicant::test::parse_capture(as_span(lying))), capture_format_error);
  std::string extra = bytes + std::string{"\0\0\0\0", 4};
  BOOST_CHECK_THROW(static_cast<void>(replicant::test::parse_capture(as_span(extra))), capture_format_error);
  BOOST_CHECK_THROW(static_cast<void>(replicant::test::describe_options("publication_names 'p'")),
                    capture_format_error);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // decoder_captures_tests
