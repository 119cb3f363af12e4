// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-tail's JSON rendering (examples/tail/json.hpp): strings, every value kind, and whole
// transactions assembled from pgoutput messages.
#include "../../../examples/tail/json.hpp"

#include <boost/test/unit_test.hpp>

#include "support/wire/pgoutput_builder.hpp"

#include <replicant/assembler/assembler.hpp>
#include <replicant/model/pg_type.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

BOOST_AUTO_TEST_SUITE(examples_tail_json_tests)

namespace pg = replicant::test;
namespace tail = replicant::examples::tail;
namespace oid = replicant::pg_type;
using replicant::lsn;
using replicant::result;
using replicant::value;

namespace {

auto json_string(std::string_view s) -> std::string {
  std::string out;
  tail::append_json_string(out, s);
  return out;
}

auto json_value(const value& v) -> std::string {
  std::string out;
  tail::append_json_value(out, v);
  return out;
}

// Assembles the given pgoutput messages and keeps every committed transaction and every
// non-transactional message.
struct collector {
  std::vector<replicant::transaction> transactions;
  std::vector<std::string> loose_messages;

  auto operator()(replicant::transaction&& t) -> result<void> {
    transactions.push_back(std::move(t));
    return {};
  }
  auto operator()(const replicant::logical_message& m) -> result<void> {
    tail::append_json_message(loose_messages.emplace_back(), {}, m);
    return {};
  }
  auto operator()(const replicant::schema_change&) -> result<void> { return {}; }
  auto operator()(const replicant::empty_commit&) -> result<void> { return {}; }
  auto operator()(const replicant::prepared_event&) -> result<void> { return {}; }
  auto operator()(const replicant::rollback_prepared_event&) -> result<void> { return {}; }
  auto operator()(const replicant::stream_abort_event&) -> result<void> { return {}; }
};

auto assemble(replicant::assembler& a, collector& c, const std::vector<pg::bytes>& messages) -> void {
  for (const auto& m : messages) {
    auto pushed = a.push(m, c);
    BOOST_TEST_REQUIRE(pushed.has_value());
  }
}

auto render(const replicant::transaction& t, bool messages = false) -> std::string {
  std::string buffer;
  std::string out;
  auto r = tail::render_transaction(t, messages, buffer, [&](std::string& chunk) -> result<void> {
    out += chunk;
    chunk.clear();
    return {};
  });
  BOOST_TEST_REQUIRE(r.has_value());
  return out;
}

constexpr std::uint32_t orders = 16384;
constexpr std::uint32_t audit = 16390;
// 2000-01-02 00:00:01.5 UTC on the wire (microseconds since 2000-01-01).
constexpr std::int64_t commit_time = 86'401'500'000;

auto orders_relation() -> pg::bytes {
  return pg::relation(std::nullopt, orders, "public", "orders", 'd',
                      {{"id", oid::int4, -1, true},
                       {"customer", oid::text, -1, false},
                       {"total", oid::numeric, -1, false},
                       {"tags", oid::text_array, -1, false},
                       {"doc", oid::jsonb, -1, false},
                       {"note", oid::text, -1, false}});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(json_strings)

BOOST_AUTO_TEST_CASE(escapes_what_json_requires) {
  BOOST_TEST(json_string("plain") == R"("plain")");
  BOOST_TEST(json_string("") == R"("")");
  BOOST_TEST(json_string("say \"hi\" \\ bye") == R"("say \"hi\" \\ bye")");
  BOOST_TEST(json_string("a\nb\rc\td\be\ff") == R"("a\nb\rc\td\be\ff")");
  BOOST_TEST(json_string(std::string_view{"nul\0here", 8}) == R"("nul\u0000here")");
  BOOST_TEST(json_string("\x01\x1f") == R"("\u0001\u001f")");
  // '/' needs no escape; a space and printable ASCII pass through.
  BOOST_TEST(json_string("a/b ~") == R"("a/b ~")");
}

BOOST_AUTO_TEST_CASE(escapes_what_a_terminal_would_execute) {
  BOOST_TEST(json_string("\x1b[31mred") == R"("\u001b[31mred")");  // ESC (C0)
  BOOST_TEST(json_string("del\x7f") == R"("del\u007f")");          // DEL
  BOOST_TEST(json_string("\xc2\x9b"
                         "31m") == R"("\u009b31m")");    // CSI (C1)
  BOOST_TEST(json_string("\xc2\x85") == R"("\u0085")");  // NEL (C1)
  BOOST_TEST(json_string("line\xe2\x80\xa8sep\xe2\x80\xa9") == R"("line\u2028sep\u2029")");
}

BOOST_AUTO_TEST_CASE(keeps_well_formed_utf8) {
  BOOST_TEST(json_string("\xc2\xa0") == "\"\xc2\xa0\"");                      // U+00A0, first non-C1
  BOOST_TEST(json_string("gr\xc3\xbc\xc3\x9f") == "\"gr\xc3\xbc\xc3\x9f\"");  // grüß
  BOOST_TEST(json_string("\xe2\x82\xac") == "\"\xe2\x82\xac\"");              // €
  BOOST_TEST(json_string("\xf0\x9f\x98\x80") == "\"\xf0\x9f\x98\x80\"");      // U+1F600
  BOOST_TEST(json_string("\xf4\x8f\xbf\xbf") == "\"\xf4\x8f\xbf\xbf\"");      // U+10FFFF
}

BOOST_AUTO_TEST_CASE(replaces_malformed_utf8) {
  const std::string fffd = "\xef\xbf\xbd";
  BOOST_TEST(json_string("a\xff"
                         "b") == "\"a" + fffd + "b\"");                                    // invalid byte
  BOOST_TEST(json_string("\x80") == "\"" + fffd + "\"");                                   // stray continuation
  BOOST_TEST(json_string("\xc0\xaf") == "\"" + fffd + fffd + "\"");                        // overlong '/'
  BOOST_TEST(json_string("\xe0\x80\xaf") == "\"" + fffd + fffd + fffd + "\"");             // overlong
  BOOST_TEST(json_string("\xed\xa0\x80") == "\"" + fffd + fffd + fffd + "\"");             // surrogate
  BOOST_TEST(json_string("\xf4\x90\x80\x80") == "\"" + fffd + fffd + fffd + fffd + "\"");  // > U+10FFFF
  BOOST_TEST(json_string("end\xe2\x82") == "\"end" + fffd + fffd + "\"");                  // cut short
  BOOST_TEST(json_string("\xc3\"") == "\"" + fffd + "\\\"\"");  // a quote after a broken lead is still escaped
  BOOST_TEST(!tail::is_valid_utf8("\xc3"));
  BOOST_TEST(tail::is_valid_utf8("ok \xc3\xbc"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(json_values)

BOOST_AUTO_TEST_CASE(scalars) {
  BOOST_TEST(json_value(value{}) == "null");
  BOOST_TEST(json_value(value{true}) == "true");
  BOOST_TEST(json_value(value{false}) == "false");
  BOOST_TEST(json_value(value{std::int64_t{42}}) == "42");
  BOOST_TEST(json_value(value{std::numeric_limits<std::int64_t>::min()}) == "-9223372036854775808");
  BOOST_TEST(json_value(value{1.5}) == "1.5");
  BOOST_TEST(json_value(value{0.1}) == "0.1");
  BOOST_TEST(json_value(value{1e100}) == "1e+100");
  BOOST_TEST(json_value(value{-0.0}) == "-0");
  BOOST_TEST(json_value(value{std::numeric_limits<double>::quiet_NaN()}) == R"("NaN")");
  BOOST_TEST(json_value(value{std::numeric_limits<double>::infinity()}) == R"("Infinity")");
  BOOST_TEST(json_value(value{-std::numeric_limits<double>::infinity()}) == R"("-Infinity")");
}

BOOST_AUTO_TEST_CASE(numerics_stay_exact_strings) {
  BOOST_TEST(json_value(replicant::numeric::parse("12.50").value()) == R"("12.50")");
  BOOST_TEST(json_value(replicant::numeric::parse("-123456789012345678901234567890.000000001").value()) ==
             R"("-123456789012345678901234567890.000000001")");
  BOOST_TEST(json_value(replicant::numeric::parse("NaN").value()) == R"("NaN")");
  BOOST_TEST(json_value(replicant::numeric::parse("-Infinity").value()) == R"("-Infinity")");
}

BOOST_AUTO_TEST_CASE(strings_bytes_and_uuids) {
  BOOST_TEST(json_value(replicant::text::borrow("it's \"x\"")) == R"("it's \"x\"")");
  const std::array<std::byte, 3> raw{std::byte{0x00}, std::byte{0xab}, std::byte{0xff}};
  BOOST_TEST(json_value(replicant::bytea::copy(raw)) == R"("\\x00abff")");
  BOOST_TEST(json_value(replicant::bytea{}) == R"("\\x")");
  const replicant::uuid u{
      {0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}};
  BOOST_TEST(json_value(u) == R"("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")");
}

BOOST_AUTO_TEST_CASE(dates_and_times_in_iso_8601) {
  using replicant::date;
  BOOST_TEST(json_value(date::from_ymd(2024, 5, 1).value()) == R"("2024-05-01")");
  BOOST_TEST(json_value(date::from_ymd(1, 1, 1).value()) == R"("0001-01-01")");
  BOOST_TEST(json_value(date::from_ymd(0, 12, 31).value()) == R"("0000-12-31")");    // 1 BC
  BOOST_TEST(json_value(date::from_ymd(-43, 3, 15).value()) == R"("-0043-03-15")");  // 44 BC
  BOOST_TEST(json_value(date::from_ymd(10000, 1, 1).value()) == R"("+10000-01-01")");
  BOOST_TEST(json_value(date::infinity()) == R"("infinity")");
  BOOST_TEST(json_value(date::minus_infinity()) == R"("-infinity")");

  BOOST_TEST(json_value(replicant::time_of_day{0}) == R"("00:00:00")");
  BOOST_TEST(json_value(replicant::time_of_day{45'296'500'000}) == R"("12:34:56.5")");
  BOOST_TEST(json_value(replicant::time_of_day{1}) == R"("00:00:00.000001")");
  BOOST_TEST(json_value(replicant::time_of_day{86'400'000'000}) == R"("24:00:00")");

  BOOST_TEST(json_value(replicant::timestamp{commit_time}) == R"("2000-01-02T00:00:01.5")");
  BOOST_TEST(json_value(replicant::timestamptz{commit_time}) == R"("2000-01-02T00:00:01.5Z")");
  BOOST_TEST(json_value(replicant::timestamptz{-1}) == R"("1999-12-31T23:59:59.999999Z")");
  BOOST_TEST(json_value(replicant::timestamptz::infinity()) == R"("infinity")");
  BOOST_TEST(json_value(replicant::timestamp::minus_infinity()) == R"("-infinity")");
}

BOOST_AUTO_TEST_CASE(json_is_embedded_on_one_line) {
  const auto doc = [](std::string_view s) { return value{replicant::json{replicant::text::borrow(s)}}; };
  BOOST_TEST(json_value(doc(R"({"a": [1, "x\ny"]})")) == R"({"a": [1, "x\ny"]})");
  BOOST_TEST(json_value(doc("{\n  \"a\": 1\r\n}")) == "{   \"a\": 1  }");
  BOOST_TEST(json_value(doc("")) == "null");
}

BOOST_AUTO_TEST_CASE(arrays_nest_with_nulls) {
  using replicant::array;
  std::vector<value> row1{value{std::int64_t{1}}, value{std::int64_t{2}}};
  std::vector<value> row2{value{std::int64_t{3}}, value{}};
  std::vector<value> rows{value{array{std::move(row1)}}, value{array{std::move(row2)}}};
  BOOST_TEST(json_value(array{std::move(rows)}) == "[[1,2],[3,null]]");
  BOOST_TEST(json_value(array{}) == "[]");
  std::vector<value> texts{value{replicant::text::borrow("a b")}, value{}, value{replicant::text::borrow("\"")}};
  BOOST_TEST(json_value(array{std::move(texts), 0}) == R"(["a b",null,"\""])");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(json_transactions)

BOOST_AUTO_TEST_CASE(renders_each_change_as_one_line) {
  replicant::assembler a{{.version = 1}};
  collector c;
  const std::string big = "unchanged-toast-is-never-shown";
  assemble(a, c,
           {pg::begin(lsn{0x16B3748}, commit_time, 123), orders_relation(),
            pg::insert(std::nullopt, orders,
                       {pg::col::text("1"), pg::col::text("Zoë \"Z\""), pg::col::text("12.50"),
                        pg::col::text("{new,\"a b\",NULL}"), pg::col::text(R"({"k": [1, 2.5]})"), pg::col::null()}),
            // Key unchanged: no old tuple; the note is TOASTed and unchanged, so it is not sent.
            pg::update(std::nullopt, orders, 0, {},
                       {pg::col::text("1"), pg::col::text("Zoë"), pg::col::text("13.00"), pg::col::text("{}"),
                        pg::col::null(), pg::col::unchanged()}),
            // Key changed: the old key comes with every other column NULL, which is not shown.
            pg::update(std::nullopt, orders, 'K',
                       {pg::col::text("1"), pg::col::null(), pg::col::null(), pg::col::null(), pg::col::null(),
                        pg::col::null()},
                       {pg::col::text("2"), pg::col::text("Zoë"), pg::col::text("13.00"), pg::col::null(),
                        pg::col::null(), pg::col::text("")}),
            pg::remove(std::nullopt, orders, 'K',
                       {pg::col::text("2"), pg::col::null(), pg::col::null(), pg::col::null(), pg::col::null(),
                        pg::col::null()}),
            pg::commit(lsn{0x16B3748}, lsn{0x16B3900}, commit_time)});
  BOOST_TEST_REQUIRE(c.transactions.size() == 1U);
  const std::string p = R"({"lsn":"0/16B3748","xid":123,"commit_time":"2000-01-02T00:00:01.5Z",)";
  const std::string expected =
      p +
      R"("op":"insert","schema":"public","table":"orders","record":{"id":1,"customer":"Zoë \"Z\"","total":"12.50","tags":["new","a b",null],"doc":{"k": [1, 2.5]},"note":null}})" +
      "\n" + p +
      R"("op":"update","schema":"public","table":"orders","record":{"id":1,"customer":"Zoë","total":"13.00","tags":[],"doc":null},"unchanged":["note"]})" +
      "\n" + p +
      R"("op":"update","schema":"public","table":"orders","record":{"id":2,"customer":"Zoë","total":"13.00","tags":null,"doc":null,"note":""},"old":{"id":1}})" +
      "\n" + p + R"("op":"delete","schema":"public","table":"orders","old":{"id":2}})" + "\n";
  BOOST_TEST(render(c.transactions[0]) == expected);
}

BOOST_AUTO_TEST_CASE(renders_full_old_rows_and_truncates) {
  replicant::assembler a{{.version = 1}};
  collector c;
  assemble(a, c,
           {pg::begin(lsn{0x1A0}, commit_time, 7),
            pg::relation(std::nullopt, audit, "app", "audit log", 'f',
                         {{"id", oid::int8, -1, true}, {"at", oid::timestamptz, -1, true}}),
            pg::remove(std::nullopt, audit, 'O', {pg::col::text("5"), pg::col::text("2024-05-01 12:00:00.25+00")}),
            orders_relation(), pg::truncate(std::nullopt, 1, {audit, orders}), pg::truncate(std::nullopt, 2, {audit}),
            pg::commit(lsn{0x1A0}, lsn{0x1B0}, commit_time)});
  BOOST_TEST_REQUIRE(c.transactions.size() == 1U);
  const std::string p = R"({"lsn":"0/1A0","xid":7,"commit_time":"2000-01-02T00:00:01.5Z",)";
  const std::string expected =
      p + R"("op":"delete","schema":"app","table":"audit log","old":{"id":5,"at":"2024-05-01T12:00:00.25Z"}})" + "\n" +
      p + R"("op":"truncate","schema":"app","table":"audit log","cascade":true,"restart_identity":false})" + "\n" + p +
      R"("op":"truncate","schema":"public","table":"orders","cascade":true,"restart_identity":false})" + "\n" + p +
      R"("op":"truncate","schema":"app","table":"audit log","cascade":false,"restart_identity":true})" + "\n";
  BOOST_TEST(render(c.transactions[0]) == expected);
}

BOOST_AUTO_TEST_CASE(renders_logical_messages_when_asked) {
  replicant::assembler a{{.version = 1}};
  collector c;
  assemble(a, c,
           {pg::message(std::nullopt, false, lsn{0x50}, "loose", "hello"), pg::begin(lsn{0x1A0}, commit_time, 9),
            orders_relation(),
            pg::insert(std::nullopt, orders,
                       {pg::col::text("1"), pg::col::null(), pg::col::null(), pg::col::null(), pg::col::null(),
                        pg::col::null()}),
            pg::message(std::nullopt, true, lsn{0x90}, "app", std::string_view{"\x00\xff", 2}),
            pg::commit(lsn{0x1A0}, lsn{0x1B0}, commit_time)});
  BOOST_TEST_REQUIRE(c.transactions.size() == 1U);
  BOOST_TEST_REQUIRE(c.loose_messages.size() == 1U);
  BOOST_TEST(c.loose_messages[0] ==
             R"({"lsn":"0/50","op":"message","transactional":false,"prefix":"loose","content":"hello"})"
             "\n");
  const std::string p = R"({"lsn":"0/1A0","xid":9,"commit_time":"2000-01-02T00:00:01.5Z",)";
  const std::string insert =
      p +
      R"("op":"insert","schema":"public","table":"orders","record":{"id":1,"customer":null,"total":null,"tags":null,"doc":null,"note":null}})" +
      "\n";
  BOOST_TEST(render(c.transactions[0]) == insert);
  BOOST_TEST(render(c.transactions[0], true) ==
             insert + p +
                 R"("message_lsn":"0/90","op":"message","transactional":true,"prefix":"app","content_hex":"\\x00ff"})" +
                 "\n");
}

BOOST_AUTO_TEST_CASE(writes_large_transactions_in_chunks) {
  replicant::assembler a{{.version = 1}};
  collector c;
  std::vector<pg::bytes> messages{pg::begin(lsn{0x1A0}, commit_time, 9), orders_relation()};
  for (int i = 0; i < 50; ++i) {
    messages.push_back(pg::insert(std::nullopt, orders,
                                  {pg::col::text(std::to_string(i)), pg::col::text(std::string(100, 'x')),
                                   pg::col::null(), pg::col::null(), pg::col::null(), pg::col::null()}));
  }
  messages.push_back(pg::commit(lsn{0x1A0}, lsn{0x1B0}, commit_time));
  assemble(a, c, messages);
  BOOST_TEST_REQUIRE(c.transactions.size() == 1U);

  std::string buffer;
  std::string whole;
  int writes = 0;
  auto r = tail::render_transaction(
      c.transactions[0], false, buffer,
      [&](std::string& chunk) -> result<void> {
        BOOST_TEST(chunk.back() == '\n', "a chunk ends at a line boundary");
        ++writes;
        whole += chunk;
        chunk.clear();
        return {};
      },
      1000);
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST(writes > 5);
  BOOST_TEST(whole == render(c.transactions[0]));
  BOOST_TEST(std::count(whole.begin(), whole.end(), '\n') == 50);

  // A failing write stops the rendering and is returned as it is.
  auto failed = tail::render_transaction(
      c.transactions[0], false, buffer,
      [](std::string&) -> result<void> { return replicant::fail(replicant::errc::io_failed); }, 1000);
  BOOST_TEST_REQUIRE(!failed.has_value());
  BOOST_TEST(failed.error() == replicant::errc::io_failed);
}

// A malformed numeric never reaches the renderer: the decoder checks numeric and bytea text as it
// reads the row, and the transaction fails there, value-free, before any of it is delivered.
BOOST_AUTO_TEST_CASE(malformed_values_fail_value_free) {
  replicant::assembler a{{.version = 1}};
  collector c;
  assemble(a, c, {pg::begin(lsn{0x1A0}, commit_time, 9), orders_relation()});
  const auto pushed = a.push(pg::insert(std::nullopt, orders,
                                        {pg::col::text("1"), pg::col::null(), pg::col::text("12,5-secret"),
                                         pg::col::null(), pg::col::null(), pg::col::null()}),
                             c);
  BOOST_TEST_REQUIRE(!pushed.has_value());
  BOOST_TEST(pushed.error() == replicant::errc::decode_failure);
  BOOST_TEST(pushed.error().message().find("secret") == std::string::npos);
  BOOST_TEST(c.transactions.empty());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // examples_tail_json_tests
