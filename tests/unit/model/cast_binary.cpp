// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#include <replicant/model/cast.hpp>

#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

BOOST_AUTO_TEST_SUITE(model_cast_binary_tests)

namespace pg = replicant::pg_type;
using replicant::cast_binary;
using replicant::cast_text;
using replicant::errc;
using replicant::value;
using replicant::value_kind;

namespace {

auto unhex(std::string_view hex) -> std::vector<std::byte> {
  std::vector<std::byte> out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<std::byte>(std::stoul(std::string(hex.substr(i, 2)), nullptr, 16)));
  return out;
}

auto bytes(std::initializer_list<unsigned> list) -> std::vector<std::byte> {
  std::vector<std::byte> out;
  for (const unsigned b : list) out.push_back(static_cast<std::byte>(b));
  return out;
}

// Appends v big-endian in `width` bytes.
auto put(std::vector<std::byte>& out, std::uint64_t v, int width) -> void {
  for (int shift = (width - 1) * 8; shift >= 0; shift -= 8)
    out.push_back(static_cast<std::byte>((v >> static_cast<unsigned>(shift)) & 0xFFU));
}

struct fixture_row {
  std::string label;
  std::uint32_t oid;
  std::string text;
  std::vector<std::byte> binary;
};

// tests/data/casting/roundtrip.tsv, written by generate.sh from a live server.
auto load_fixtures() -> std::vector<fixture_row> {
  std::ifstream in(REPLICANT_TEST_DATA_DIR "/casting/roundtrip.tsv");
  BOOST_TEST_REQUIRE(in.good());
  std::vector<fixture_row> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string label;
    std::string oid;
    std::string text_hex;
    std::string binary_hex;
    std::getline(fields, label, '\t');
    std::getline(fields, oid, '\t');
    std::getline(fields, text_hex, '\t');
    std::getline(fields, binary_hex, '\t');
    const auto text_bytes = unhex(text_hex);
    rows.push_back({label, static_cast<std::uint32_t>(std::stoul(oid)),
                    std::string(reinterpret_cast<const char*>(text_bytes.data()), text_bytes.size()),
                    unhex(binary_hex)});
  }
  return rows;
}

// The alternative each built-in type must arrive as when the server printed it (no string fallback).
auto expected_kind(std::uint32_t oid) -> value_kind {
  switch (oid) {
    case pg::boolean: return value_kind::boolean;
    case pg::int2:
    case pg::int4:
    case pg::int8:
    case pg::oid: return value_kind::int64;
    case pg::float4:
    case pg::float8: return value_kind::float64;
    case pg::numeric:
    case pg::money: return value_kind::numeric;
    case pg::bytea: return value_kind::bytea;
    case pg::json:
    case pg::jsonb: return value_kind::json;
    case pg::date: return value_kind::date;
    case pg::time: return value_kind::time;
    case pg::timestamp: return value_kind::timestamp;
    case pg::timestamptz: return value_kind::timestamptz;
    case pg::uuid: return value_kind::uuid;
    default: return pg::element_of(oid) != 0 ? value_kind::array : value_kind::text;
  }
}

// Whether replicant::to_string reproduces the server's text: not for money (it prints the decimal)
// nor float4 (held as the exactly-widened double, which prints with more digits).
auto prints_like_server(std::uint32_t oid) -> bool {
  for (const auto t : {pg::money, pg::float4}) {
    if (oid == t || pg::element_of(oid) == t) return false;
  }
  return true;
}

auto expect_decode_failure(std::uint32_t oid, const std::vector<std::byte>& data) -> void {
  const auto r = cast_binary(oid, data);
  BOOST_TEST_CONTEXT("oid " << oid << ", " << data.size() << " bytes") {
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST((r.error() == errc::decode_failure));
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cast_binary_fn)

BOOST_AUTO_TEST_CASE(fixtures_cover_every_cast_type) {
  const auto rows = load_fixtures();
  BOOST_TEST(rows.size() >= 150U);
  for (const auto oid :
       {pg::boolean, pg::bytea,   pg::internal_char, pg::name, pg::int8,      pg::int2,        pg::int4,
        pg::text,    pg::oid,     pg::json,          pg::xml,  pg::float4,    pg::float8,      pg::money,
        pg::bpchar,  pg::varchar, pg::date,          pg::time, pg::timestamp, pg::timestamptz, pg::interval,
        pg::timetz,  pg::numeric, pg::uuid,          pg::jsonb}) {
    bool scalar = false;
    bool array = false;
    for (const auto& row : rows) {
      scalar = scalar || row.oid == oid;
      array = array || pg::element_of(row.oid) == oid;
    }
    BOOST_TEST_CONTEXT("oid " << oid) {
      BOOST_TEST(scalar);
      BOOST_TEST(array);
    }
  }
}

BOOST_AUTO_TEST_CASE(text_and_binary_forms_of_the_same_rows_give_equal_values) {
  for (const auto& row : load_fixtures()) {
    BOOST_TEST_CONTEXT(row.label) {
      const auto from_text = cast_text(row.oid, row.text);
      const auto from_binary = cast_binary(row.oid, row.binary);
      BOOST_TEST_REQUIRE(from_text.has_value());
      BOOST_TEST_REQUIRE(from_binary.has_value());
      BOOST_TEST((from_text->kind() == expected_kind(row.oid)));
      BOOST_TEST((from_binary->kind() == expected_kind(row.oid)));
      BOOST_TEST((*from_text == *from_binary));
      if (prints_like_server(row.oid)) {
        BOOST_TEST(replicant::to_string(*from_binary) == row.text);
        BOOST_TEST(replicant::to_string(*from_text) == row.text);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(raw_text_types_are_rendered_exactly_as_the_server_prints_them) {
  // For interval, timetz and "char" the binary path must *produce* the server's text; equality of
  // text alternatives is byte equality, so this is covered above. Spot-check a few explicitly.
  const auto interval = [](std::int64_t micros, std::int32_t days, std::int32_t months) {
    std::vector<std::byte> b;
    put(b, static_cast<std::uint64_t>(micros), 8);
    put(b, static_cast<std::uint32_t>(days), 4);
    put(b, static_cast<std::uint32_t>(months), 4);
    return replicant::to_string(cast_binary(pg::interval, b).value());
  };
  BOOST_TEST(interval(7'200'000'000, -1, 0) == "-1 days +02:00:00");
  BOOST_TEST(interval(0, 0, 0) == "00:00:00");
  BOOST_TEST(interval(-1, 0, 0) == "-00:00:00.000001");
  BOOST_TEST(interval(0, 1, 14) == "1 year 2 mons 1 day");
  BOOST_TEST(interval(0, 0, -1) == "-1 mons");
  // PostgreSQL 17's infinite intervals.
  BOOST_TEST(interval(std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int32_t>::max(),
                      std::numeric_limits<std::int32_t>::max()) == "infinity");
  BOOST_TEST(interval(std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int32_t>::min(),
                      std::numeric_limits<std::int32_t>::min()) == "-infinity");

  std::vector<std::byte> timetz;
  put(timetz, 43'200'000'000, 8);                       // 12:00
  put(timetz, static_cast<std::uint32_t>(-19'800), 4);  // 5:30 east of UTC is -19800 seconds west
  BOOST_TEST(replicant::to_string(cast_binary(pg::timetz, timetz).value()) == "12:00:00+05:30");

  BOOST_TEST(replicant::to_string(cast_binary(pg::internal_char, bytes({0xE9})).value()) == "\\351");
  BOOST_TEST(replicant::to_string(cast_binary(pg::internal_char, bytes({0x00})).value()).empty());
}

BOOST_AUTO_TEST_CASE(numeric_digits_are_rendered_in_canonical_form) {
  const auto numeric = [](std::int16_t weight, std::uint16_t sign, std::uint16_t dscale,
                          std::initializer_list<std::uint16_t> digits) {
    std::vector<std::byte> b;
    put(b, digits.size(), 2);
    put(b, static_cast<std::uint16_t>(weight), 2);
    put(b, sign, 2);
    put(b, dscale, 2);
    for (const auto d : digits) put(b, d, 2);
    return std::string(cast_binary(pg::numeric, b).value().get<replicant::numeric>().view());
  };
  BOOST_TEST(numeric(0, 0, 0, {}) == "0");
  BOOST_TEST(numeric(0, 0, 3, {}) == "0.000");
  BOOST_TEST(numeric(1, 0x4000, 3, {1, 2345, 6780}) == "-12345.678");
  BOOST_TEST(numeric(-2, 0, 8, {1}) == "0.00000001");
  BOOST_TEST(numeric(2, 0, 0, {12}) == "1200000000");
  // Digits beyond dscale are cut (numeric_recv truncates), and a value cut to zero has no sign.
  BOOST_TEST(numeric(-1, 0x4000, 2, {10}) == "0.00");
  BOOST_TEST(numeric(-1, 0x4000, 3, {10}) == "-0.001");
  // A leading zero group (not what the server sends, but valid) does not leak into the text.
  BOOST_TEST(numeric(1, 0, 0, {0, 5}) == "5");
  BOOST_TEST(numeric(0, 0xC000, 0, {}) == "NaN");
  BOOST_TEST(numeric(0, 0xD000, 0, {}) == "Infinity");
  BOOST_TEST(numeric(0, 0xF000, 32, {}) == "-Infinity");
}

BOOST_AUTO_TEST_CASE(money_cents_become_the_c_locale_decimal) {
  const auto money = [](std::int64_t cents) {
    std::vector<std::byte> b;
    put(b, static_cast<std::uint64_t>(cents), 8);
    return std::string(cast_binary(pg::money, b).value().get<replicant::numeric>().view());
  };
  BOOST_TEST(money(123'456) == "1234.56");
  BOOST_TEST(money(-500) == "-5.00");
  BOOST_TEST(money(5) == "0.05");
  BOOST_TEST(money(std::numeric_limits<std::int64_t>::min()) == "-92233720368547758.08");
}

BOOST_AUTO_TEST_CASE(rendered_values_own_their_text) {
  // numeric, money, interval, timetz and "char" are rendered, not borrowed: they outlive the input.
  value numeric;
  value interval;
  {
    auto n = bytes({0, 2, 0, 1, 0x40, 0, 0, 2, 0, 12, 0x0D, 0x80});  // groups 12|3456, negative, dscale 2
    numeric = cast_binary(pg::numeric, n).value();
    auto i = bytes({0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 0});
    interval = cast_binary(pg::interval, i).value();
    n.assign(n.size(), std::byte{0xFF});
    i.assign(i.size(), std::byte{0xFF});
  }
  BOOST_TEST(numeric.get<replicant::numeric>().view() == "-123456.00");
  BOOST_TEST(numeric.get<replicant::numeric>().is_owned());
  BOOST_TEST(interval.get<replicant::text>().view() == "3 days 00:00:00.000001");
  // A long numeric goes through the heap path rather than the stack buffer.
  std::vector<std::byte> wide;
  put(wide, 20, 2);
  put(wide, 19, 2);
  put(wide, 0, 2);
  put(wide, 0, 2);
  for (int k = 0; k < 20; ++k) put(wide, 1234, 2);
  std::string expected;
  for (int k = 0; k < 20; ++k) expected += "1234";
  BOOST_TEST(std::string(cast_binary(pg::numeric, wide).value().get<replicant::numeric>().view()) == expected);
}

BOOST_AUTO_TEST_CASE(text_like_values_borrow_the_bytes) {
  const auto data = bytes({'h', 'i'});
  const auto v = cast_binary(pg::text, data).value();
  BOOST_TEST(static_cast<const void*>(v.get<replicant::text>().view().data()) == static_cast<const void*>(data.data()));
  BOOST_TEST(!v.get<replicant::text>().is_owned());
  const auto b = cast_binary(pg::bytea, data).value();
  BOOST_TEST(static_cast<const void*>(b.get<replicant::bytea>().bytes().data()) ==
             static_cast<const void*>(data.data()));
  const auto jsonb = bytes({1, '[', ']'});  // the value borrows these, so they must outlive it
  const auto j = cast_binary(pg::jsonb, jsonb).value();
  BOOST_TEST(j.get<replicant::json>().view() == "[]");
}

BOOST_AUTO_TEST_CASE(unknown_types_deliver_the_bytes_as_sent) {
  const auto data = bytes({0, 0, 0, 1, 0xFF});
  const auto v = cast_binary(600 /* point */, data).value();
  BOOST_TEST_REQUIRE(v.holds<replicant::bytea>());
  BOOST_TEST(v.get<replicant::bytea>().size() == data.size());
}

BOOST_AUTO_TEST_CASE(wrong_lengths_are_decode_failures) {
  for (const auto& [oid, good] : std::vector<std::pair<std::uint32_t, std::size_t>>{{pg::boolean, 1},
                                                                                    {pg::int2, 2},
                                                                                    {pg::int4, 4},
                                                                                    {pg::int8, 8},
                                                                                    {pg::oid, 4},
                                                                                    {pg::float4, 4},
                                                                                    {pg::float8, 8},
                                                                                    {pg::money, 8},
                                                                                    {pg::date, 4},
                                                                                    {pg::time, 8},
                                                                                    {pg::timestamp, 8},
                                                                                    {pg::timestamptz, 8},
                                                                                    {pg::timetz, 12},
                                                                                    {pg::interval, 16},
                                                                                    {pg::uuid, 16},
                                                                                    {pg::internal_char, 1}}) {
    expect_decode_failure(oid, std::vector<std::byte>(good - 1));
    expect_decode_failure(oid, std::vector<std::byte>(good + 1));
    BOOST_TEST(cast_binary(oid, std::vector<std::byte>(good)).has_value());
  }
  expect_decode_failure(pg::numeric, {});
  expect_decode_failure(pg::numeric, bytes({0, 1, 0, 0, 0, 0, 0, 0}));        // one digit announced, none sent
  expect_decode_failure(pg::numeric, bytes({0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));  // trailing bytes
  expect_decode_failure(pg::jsonb, {});
}

BOOST_AUTO_TEST_CASE(impossible_fields_are_decode_failures) {
  expect_decode_failure(pg::numeric, bytes({0, 1, 0, 0, 0, 0, 0, 0, 0x27, 0x10}));  // digit 10000
  expect_decode_failure(pg::numeric, bytes({0, 0, 0, 0, 0x80, 0, 0, 0}));           // no such sign
  expect_decode_failure(pg::numeric, bytes({0, 0, 0, 0, 0, 0, 0x40, 0}));           // dscale beyond the mask
  expect_decode_failure(pg::numeric, bytes({0xFF, 0xFF, 0, 0, 0, 0, 0, 0}));        // negative ndigits
  expect_decode_failure(pg::jsonb, bytes({2, '{', '}'}));                           // unknown jsonb version
  std::vector<std::byte> late;
  put(late, 86'400'000'001, 8);
  expect_decode_failure(pg::time, late);
  std::vector<std::byte> early;
  put(early, static_cast<std::uint64_t>(-1), 8);
  expect_decode_failure(pg::time, early);
  std::vector<std::byte> far_zone;
  put(far_zone, 0, 8);
  put(far_zone, 16 * 3600, 4);
  expect_decode_failure(pg::timetz, far_zone);
}

BOOST_AUTO_TEST_CASE(malformed_arrays_are_decode_failures) {
  // A valid int4[] '{7}': ndim 1, no nulls, int4, length 1 / lower bound 1, one 4-byte element.
  const auto header = [](std::uint32_t ndim, std::uint32_t flags, std::uint32_t element) {
    std::vector<std::byte> b;
    put(b, ndim, 4);
    put(b, flags, 4);
    put(b, element, 4);
    return b;
  };
  auto good = header(1, 0, pg::int4);
  put(good, 1, 4);
  put(good, 1, 4);
  put(good, 4, 4);
  put(good, 7, 4);
  const auto ok = cast_binary(pg::int4_array, good);
  BOOST_TEST_REQUIRE(ok.has_value());
  BOOST_TEST(ok->get<replicant::array>()[0].get<std::int64_t>() == 7);

  expect_decode_failure(pg::int4_array, {});
  expect_decode_failure(pg::int4_array, header(7, 0, pg::int4));                               // ndim > MAXDIM
  expect_decode_failure(pg::int4_array, header(static_cast<std::uint32_t>(-1), 0, pg::int4));  // ndim < 0
  expect_decode_failure(pg::int4_array, header(0, 2, pg::int4));                               // flags
  auto wrong_element = good;
  wrong_element[11] = std::byte{20};  // says int8 inside an int4[]
  expect_decode_failure(pg::int4_array, wrong_element);
  auto trailing = good;
  trailing.push_back(std::byte{0});
  expect_decode_failure(pg::int4_array, trailing);
  auto truncated = good;
  truncated.pop_back();
  expect_decode_failure(pg::int4_array, truncated);
  auto bad_element_length = good;
  bad_element_length[23] = std::byte{3};  // a 3-byte int4
  bad_element_length.pop_back();
  expect_decode_failure(pg::int4_array, bad_element_length);
  auto negative_length = header(1, 0, pg::int4);
  put(negative_length, static_cast<std::uint32_t>(-2), 4);
  put(negative_length, 1, 4);
  expect_decode_failure(pg::int4_array, negative_length);
  // A huge element count with no bytes behind it is refused before anything is allocated.
  auto huge = header(2, 0, pg::int4);
  put(huge, 0x7FFFFFFF, 4);
  put(huge, 1, 4);
  put(huge, 0x7FFFFFFF, 4);
  put(huge, 1, 4);
  expect_decode_failure(pg::int4_array, huge);
  // A malformed element inside an otherwise valid array.
  auto bad_numeric = header(1, 0, pg::numeric);
  put(bad_numeric, 1, 4);
  put(bad_numeric, 1, 4);
  put(bad_numeric, 2, 4);
  put(bad_numeric, 0, 2);
  expect_decode_failure(pg::numeric_array, bad_numeric);
}

BOOST_AUTO_TEST_CASE(empty_and_zero_length_arrays) {
  std::vector<std::byte> empty;
  put(empty, 0, 4);
  put(empty, 0, 4);
  put(empty, pg::int4, 4);
  const auto v = cast_binary(pg::int4_array, empty).value();
  BOOST_TEST(v.get<replicant::array>().empty());
  BOOST_TEST(v.get<replicant::array>().dimensions() == 0U);
  std::vector<std::byte> zero_length;
  put(zero_length, 1, 4);
  put(zero_length, 0, 4);
  put(zero_length, pg::int4, 4);
  put(zero_length, 0, 4);
  put(zero_length, 1, 4);
  BOOST_TEST(cast_binary(pg::int4_array, zero_length).value().get<replicant::array>().empty());
}

// Found by fuzzing (fuzz_cast, tests/fuzz/regressions/cast/): an upper bound past INT32_MAX, which
// array_recv refuses, was accepted, and the array then printed as a text that reads back differently.
BOOST_AUTO_TEST_CASE(bounds_past_int32_are_decode_failures) {
  const auto array = [](std::int32_t lower) {
    std::vector<std::byte> b;
    put(b, 1, 4);
    put(b, 0, 4);
    put(b, pg::int4, 4);
    put(b, 2, 4);
    put(b, static_cast<std::uint32_t>(lower), 4);
    for (const std::uint32_t element : {1U, 2U}) {
      put(b, 4, 4);
      put(b, element, 4);
    }
    return b;
  };
  const std::int32_t last = std::numeric_limits<std::int32_t>::max() - 2;  // upper bound INT32_MAX - 1
  const auto ok = cast_binary(pg::int4_array, array(last));
  BOOST_TEST_REQUIRE(ok.has_value());
  BOOST_TEST(ok->get<replicant::array>().lower_bound() == last);
  BOOST_TEST((cast_text(pg::int4_array, replicant::to_string(*ok)).value() == *ok));
  expect_decode_failure(pg::int4_array, array(last + 1));
  expect_decode_failure(pg::int4_array, array(std::numeric_limits<std::int32_t>::max()));
}

BOOST_AUTO_TEST_CASE(errors_carry_no_value_bytes) {
  // A corrupt numeric whose bytes spell a secret: the error must not repeat any of it.
  const std::string secret = "s3cr3t-binary-payload";
  std::vector<std::byte> data = bytes({0, 0, 0, 0, 0x80, 0, 0, 0});
  for (const char c : secret) data.push_back(static_cast<std::byte>(c));
  const auto r = cast_binary(pg::numeric, data);
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST(r.error().message().find(secret) == std::string::npos);
  BOOST_TEST(r.error().message().find("s3cr3t") == std::string::npos);
  BOOST_TEST(std::string(r.error().category().name()) == "replicant");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // model_cast_binary_tests
