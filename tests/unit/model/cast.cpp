// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#include <replicant/model/cast.hpp>

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

BOOST_AUTO_TEST_SUITE(model_cast_tests)

namespace pg = replicant::pg_type;
using replicant::array;
using replicant::cast_text;
using replicant::errc;
using replicant::value;
using replicant::value_kind;

namespace {

// Casts text that must succeed.
auto cast(std::uint32_t oid, std::string_view s) -> value {
  auto r = cast_text(oid, s);
  BOOST_TEST_REQUIRE(r.has_value());
  return std::move(*r);
}

// Text that is not its type's shape: delivered as the original string, borrowing the input.
auto expect_string_fallback(std::uint32_t oid, std::string_view s) -> void {
  BOOST_TEST_CONTEXT("oid " << oid << " input #" << s.size()) {
    const auto v = cast(oid, s);
    BOOST_TEST_REQUIRE(v.holds<replicant::text>());
    BOOST_TEST(v.get<replicant::text>().view() == s);
    BOOST_TEST(static_cast<const void*>(v.get<replicant::text>().view().data()) == static_cast<const void*>(s.data()));
  }
}

auto expect_decode_failure(std::uint32_t oid, std::string_view s) -> void {
  BOOST_TEST_CONTEXT("oid " << oid << " input #" << s.size()) {
    const auto r = cast_text(oid, s);
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST((r.error() == errc::decode_failure));
  }
}

auto num(const value& v) -> std::string { return std::string(v.get<replicant::numeric>().view()); }

auto elements(const value& v) -> const array& { return v.get<array>(); }

}  // namespace

BOOST_AUTO_TEST_SUITE(cast_text_fn)

BOOST_AUTO_TEST_CASE(bool_is_t_or_f) {
  BOOST_TEST(cast(pg::boolean, "t").get<bool>() == true);
  BOOST_TEST(cast(pg::boolean, "f").get<bool>() == false);
  expect_string_fallback(pg::boolean, "true");
  expect_string_fallback(pg::boolean, "");
}

BOOST_AUTO_TEST_CASE(integers_keep_their_full_range) {
  BOOST_TEST(cast(pg::int2, "-32768").get<std::int64_t>() == -32768);
  BOOST_TEST(cast(pg::int2, "32767").get<std::int64_t>() == 32767);
  BOOST_TEST(cast(pg::int4, "-2147483648").get<std::int64_t>() == std::numeric_limits<std::int32_t>::min());
  BOOST_TEST(cast(pg::int4, "2147483647").get<std::int64_t>() == std::numeric_limits<std::int32_t>::max());
  BOOST_TEST(cast(pg::int8, "-9223372036854775808").get<std::int64_t>() == std::numeric_limits<std::int64_t>::min());
  BOOST_TEST(cast(pg::int8, "9223372036854775807").get<std::int64_t>() == std::numeric_limits<std::int64_t>::max());
  BOOST_TEST(cast(pg::oid, "4294967295").get<std::int64_t>() == 4294967295);
  BOOST_TEST(cast(pg::int4, "0").get<std::int64_t>() == 0);
  // Not what the server prints for the type: the original string.
  expect_string_fallback(pg::int2, "32768");
  expect_string_fallback(pg::int4, "2147483648");
  expect_string_fallback(pg::int8, "9223372036854775808");
  expect_string_fallback(pg::oid, "-1");
  expect_string_fallback(pg::int4, "12a");
  expect_string_fallback(pg::int4, "+1");
  expect_string_fallback(pg::int4, " 1");
  expect_string_fallback(pg::int4, "");
}

BOOST_AUTO_TEST_CASE(floats_include_nan_and_infinities) {
  BOOST_TEST(std::isnan(cast(pg::float8, "NaN").get<double>()));
  BOOST_TEST(cast(pg::float8, "Infinity").get<double>() == std::numeric_limits<double>::infinity());
  BOOST_TEST(cast(pg::float8, "-Infinity").get<double>() == -std::numeric_limits<double>::infinity());
  BOOST_TEST(std::isnan(cast(pg::float4, "NaN").get<double>()));
  BOOST_TEST(cast(pg::float4, "-Infinity").get<double>() == -std::numeric_limits<double>::infinity());
  BOOST_TEST(cast(pg::float8, "0.1").get<double>() == 0.1);
  BOOST_TEST(cast(pg::float8, "1e+100").get<double>() == 1e100);
  BOOST_TEST(cast(pg::float8, "5e-324").get<double>() == 5e-324);
  BOOST_TEST(cast(pg::float8, "1.7976931348623157e+308").get<double>() == std::numeric_limits<double>::max());
  const double negative_zero = cast(pg::float8, "-0").get<double>();
  BOOST_TEST((negative_zero == 0.0 && std::signbit(negative_zero)));
  // float4 text is read as a float and widened, so it equals the binary path's value exactly.
  BOOST_TEST(cast(pg::float4, "0.1").get<double>() == static_cast<double>(0.1F));
  BOOST_TEST(cast(pg::float4, "3.4028235e+38").get<double>() == static_cast<double>(std::numeric_limits<float>::max()));
  expect_string_fallback(pg::float8, "nan");  // the server never prints this spelling
  expect_string_fallback(pg::float8, "inf");
  expect_string_fallback(pg::float8, "0x1p3");
  expect_string_fallback(pg::float8, "1.5x");
  expect_string_fallback(pg::float4, "1e+39");  // out of float range
}

BOOST_AUTO_TEST_CASE(numeric_is_exact) {
  BOOST_TEST(num(cast(pg::numeric, "1.50")) == "1.50");
  BOOST_TEST(num(cast(pg::numeric, "-12345.678")) == "-12345.678");
  BOOST_TEST(num(cast(pg::numeric, "0")) == "0");
  BOOST_TEST(cast(pg::numeric, "NaN").get<replicant::numeric>().is_nan());
  BOOST_TEST(cast(pg::numeric, "Infinity").get<replicant::numeric>().is_infinite());
  BOOST_TEST(cast(pg::numeric, "-Infinity").get<replicant::numeric>().is_negative());
  const std::string thousand_digits(1000, '7');
  BOOST_TEST(num(cast(pg::numeric, thousand_digits)) == thousand_digits);
  const std::string max_scale = "-1." + std::string(16382, '0') + "1";  // scale 16383, numeric's maximum
  const auto v = cast(pg::numeric, max_scale);
  BOOST_TEST(num(v) == max_scale);
  BOOST_TEST(v.get<replicant::numeric>().scale() == 16383U);
  const std::string both = std::string(131072, '9') + "." + std::string(16383, '1');  // numeric's widest
  BOOST_TEST(num(cast(pg::numeric, both)) == both);
}

BOOST_AUTO_TEST_CASE(numeric_borrows_its_digits) {
  const std::string s = "3.14159";
  const auto v = cast(pg::numeric, s);
  BOOST_TEST(static_cast<const void*>(v.get<replicant::numeric>().view().data()) == static_cast<const void*>(s.data()));
}

BOOST_AUTO_TEST_CASE(malformed_numeric_is_a_decode_failure) {
  for (const char* bad : {"", "-", "1.", ".5", "--1", "+1", "1e5", "1E+05", "1,000", " 1", "1 ", "0x10", "nan", "inf",
                          "infinity", "-NaN", "1.2.3", "١٢"}) {
    expect_decode_failure(pg::numeric, bad);
  }
}

BOOST_AUTO_TEST_CASE(bytea_is_hex) {
  const auto v = cast(pg::bytea, "\\xDEADbeef00");
  const auto b = v.get<replicant::bytea>().bytes();
  BOOST_TEST_REQUIRE(b.size() == 5U);
  BOOST_TEST(std::to_integer<int>(b[0]) == 0xDE);
  BOOST_TEST(std::to_integer<int>(b[3]) == 0xEF);
  BOOST_TEST(std::to_integer<int>(b[4]) == 0x00);
  BOOST_TEST(cast(pg::bytea, "\\x").get<replicant::bytea>().empty());
  BOOST_TEST(v.get<replicant::bytea>().is_owned());  // decoded, so it cannot borrow
}

BOOST_AUTO_TEST_CASE(non_hex_bytea_is_a_decode_failure) {
  for (const char* bad :
       {"", "\\", "x", "\\x0", "\\xabc", "\\xzz", "\\x0g", "deadbeef", "\\001\\002", "abc", "\\X00", " \\x00"}) {
    expect_decode_failure(pg::bytea, bad);
  }
}

BOOST_AUTO_TEST_CASE(dates_cover_bc_and_large_years) {
  const auto d = [](std::string_view s) { return cast(pg::date, s).get<replicant::date>(); };
  BOOST_TEST(d("2000-01-01").days_since_2000() == 0);
  BOOST_TEST(d("2024-02-29").month() == 2U);
  BOOST_TEST(d("2024-02-29").day() == 29U);
  BOOST_TEST(d("0044-03-15 BC").year() == -43);  // astronomical numbering
  BOOST_TEST(d("0001-01-01 BC").year() == 0);
  BOOST_TEST(d("0001-02-29 BC").day() == 29U);  // 1 BC is a leap year
  BOOST_TEST(d("12345-06-07").year() == 12345);
  BOOST_TEST(d("5874897-12-31").days_since_2000() == 2'145'031'948);
  BOOST_TEST(d("4714-11-24 BC").days_since_2000() == -2'451'545);
  BOOST_TEST((d("infinity") == replicant::date::infinity()));
  BOOST_TEST((d("-infinity") == replicant::date::minus_infinity()));
  expect_string_fallback(pg::date, "2023-02-29");
  expect_string_fallback(pg::date, "2024-13-01");
  expect_string_fallback(pg::date, "2024-00-10");
  expect_string_fallback(pg::date, "24-01-01");
  expect_string_fallback(pg::date, "2024-1-01");
  expect_string_fallback(pg::date, "2024-01-01 AD");
  expect_string_fallback(pg::date, "0000-01-01");
  expect_string_fallback(pg::date, "5874898-01-01");  // beyond PostgreSQL's range
  expect_string_fallback(pg::date, "4714-11-23 BC");
  expect_string_fallback(pg::date, "01/02/2024");  // another DateStyle
  expect_string_fallback(pg::date, "Infinity");
}

BOOST_AUTO_TEST_CASE(times_include_24_00) {
  const auto t = [](std::string_view s) { return cast(pg::time, s).get<replicant::time_of_day>(); };
  BOOST_TEST(t("00:00:00").micros_since_midnight() == 0);
  BOOST_TEST(t("24:00:00").micros_since_midnight() == 86'400'000'000);
  BOOST_TEST(t("13:14:15.0001").micros_since_midnight() == 47'655'000'100);
  BOOST_TEST(t("23:59:59.999999").microsecond() == 999'999);
  BOOST_TEST(t("10:00:01.5").microsecond() == 500'000);
  expect_string_fallback(pg::time, "24:00:01");
  expect_string_fallback(pg::time, "24:00:00.000001");
  expect_string_fallback(pg::time, "12:60:00");
  expect_string_fallback(pg::time, "12:00:60");
  expect_string_fallback(pg::time, "12:00");
  expect_string_fallback(pg::time, "12:00:00.1234567");
  expect_string_fallback(pg::time, "12:00:00.");
  expect_string_fallback(pg::time, "12:00:00+00");
}

BOOST_AUTO_TEST_CASE(timestamps_cover_infinity_bc_and_fractions) {
  const auto ts = [](std::string_view s) { return cast(pg::timestamp, s).get<replicant::timestamp>(); };
  BOOST_TEST(ts("2000-01-01 00:00:00").micros_since_2000() == 0);
  BOOST_TEST(ts("1999-12-31 23:59:59.5").micros_since_2000() == -500'000);
  BOOST_TEST(ts("2024-01-02 03:04:05.123456").time_part().microsecond() == 123'456);
  BOOST_TEST((ts("infinity") == replicant::timestamp::infinity()));
  BOOST_TEST((ts("-infinity") == replicant::timestamp::minus_infinity()));
  BOOST_TEST(ts("0044-03-15 12:00:00 BC").date_part().year() == -43);
  BOOST_TEST(ts("294276-12-31 23:59:59.999999").micros_since_2000() == 9'223'371'331'199'999'999);
  BOOST_TEST(ts("4714-11-24 00:00:00 BC").micros_since_2000() == -211'813'488'000'000'000);
  expect_string_fallback(pg::timestamp, "2024-01-02T03:04:05");
  expect_string_fallback(pg::timestamp, "2024-01-02 03:04:05+00");  // an offset on a timestamp
  expect_string_fallback(pg::timestamp, "2024-01-02 24:00:00");
  expect_string_fallback(pg::timestamp, "2024-01-02");
  expect_string_fallback(pg::timestamp, "294277-01-01 00:00:00");
}

BOOST_AUTO_TEST_CASE(timestamptz_folds_the_offset_into_utc) {
  const auto tz = [](std::string_view s) { return cast(pg::timestamptz, s).get<replicant::timestamptz>(); };
  const auto utc = tz("2024-01-02 03:04:05.12+00");
  BOOST_TEST(utc.time_part().microsecond() == 120'000);
  BOOST_TEST(replicant::to_string(utc) == "2024-01-02 03:04:05.12+00");
  // TimeZone is pinned to UTC, but any offset the server might print is honoured.
  BOOST_TEST((tz("2024-01-02 08:34:05+05:30") == tz("2024-01-02 03:04:05+00")));
  BOOST_TEST((tz("2024-01-01 21:04:05-06") == tz("2024-01-02 03:04:05+00")));
  BOOST_TEST((tz("1900-01-01 05:21:10+05:21:10") == tz("1900-01-01 00:00:00+00")));
  BOOST_TEST(tz("0044-03-15 12:00:00.5+00 BC").date_part().year() == -43);
  BOOST_TEST((tz("infinity") == replicant::timestamptz::infinity()));
  BOOST_TEST((tz("-infinity") == replicant::timestamptz::minus_infinity()));
  const auto sys = tz("1970-01-01 00:00:01+00").to_sys_time();
  BOOST_TEST_REQUIRE(sys.has_value());
  BOOST_TEST(sys->time_since_epoch().count() == 1'000'000);
  expect_string_fallback(pg::timestamptz, "2024-01-02 03:04:05");  // no offset
  expect_string_fallback(pg::timestamptz, "2024-01-02 03:04:05Z");
  expect_string_fallback(pg::timestamptz, "2024-01-02 03:04:05+16");
  expect_string_fallback(pg::timestamptz, "2024-01-02 03:04:05+5");
  expect_string_fallback(pg::timestamptz, "2024-01-02 03:04:05 UTC");
}

BOOST_AUTO_TEST_CASE(interval_and_timetz_stay_raw_text) {
  for (const auto& [oid, s] :
       std::vector<std::pair<std::uint32_t, std::string_view>>{{pg::interval, "1 year 2 mons 3 days 04:05:06.789"},
                                                               {pg::interval, "-1 days +02:00:00"},
                                                               {pg::interval, "infinity"},
                                                               {pg::timetz, "12:00:00.25-03"},
                                                               {pg::timetz, "23:59:59.999999+14:59:59"}}) {
    const auto v = cast(oid, s);
    BOOST_TEST_REQUIRE(v.holds<replicant::text>());
    BOOST_TEST(v.get<replicant::text>().view() == s);
  }
}

BOOST_AUTO_TEST_CASE(strings_borrow_the_input) {
  for (const auto oid : {pg::text, pg::varchar, pg::bpchar, pg::name, pg::internal_char, pg::xml}) {
    const std::string s = "ab  ";
    const auto v = cast(oid, s);
    BOOST_TEST_REQUIRE(v.holds<replicant::text>());
    BOOST_TEST(v.get<replicant::text>().view() == s);
    BOOST_TEST(!v.get<replicant::text>().is_owned());
    BOOST_TEST(static_cast<const void*>(v.get<replicant::text>().view().data()) == static_cast<const void*>(s.data()));
  }
  BOOST_TEST(cast(pg::text, "").get<replicant::text>().empty());
  BOOST_TEST(cast(pg::text, "NULL").get<replicant::text>().view() == "NULL");  // a column value is never NULL by text
}

BOOST_AUTO_TEST_CASE(json_and_jsonb_are_raw_json) {
  const std::string doc = R"(  {"a" : [1, "x"]}  )";
  BOOST_TEST(cast(pg::json, doc).get<replicant::json>().view() == doc);
  BOOST_TEST(cast(pg::jsonb, R"({"a": 1})").get<replicant::json>().view() == R"({"a": 1})");
  BOOST_TEST(cast(pg::jsonb, "not json").holds<replicant::json>());  // not validated: the server did that
}

BOOST_AUTO_TEST_CASE(uuid_in_either_case) {
  const auto u = cast(pg::uuid, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11").get<replicant::uuid>();
  BOOST_TEST(u.bytes()[0] == 0xA0U);
  BOOST_TEST(u.bytes()[15] == 0x11U);
  BOOST_TEST((cast(pg::uuid, "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11").get<replicant::uuid>() == u));
  expect_string_fallback(pg::uuid, "a0eebc999c0b4ef8bb6d6bb9bd380a11");
  expect_string_fallback(pg::uuid, "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}");
  expect_string_fallback(pg::uuid, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1g");
}

BOOST_AUTO_TEST_CASE(money_in_c_or_en_us_shape_is_a_decimal) {
  BOOST_TEST(num(cast(pg::money, "$1,234.56")) == "1234.56");
  BOOST_TEST(num(cast(pg::money, "-$5.00")) == "-5.00");
  BOOST_TEST(num(cast(pg::money, "$1234567.89")) == "1234567.89");
  BOOST_TEST(num(cast(pg::money, "$0.05")) == "0.05");
  BOOST_TEST(num(cast(pg::money, "-$0.05")) == "-0.05");
  BOOST_TEST(num(cast(pg::money, "$0.00")) == "0.00");
  BOOST_TEST(num(cast(pg::money, "-$92,233,720,368,547,758.08")) == "-92233720368547758.08");
  BOOST_TEST(num(cast(pg::money, "$1,234,567.89")) == "1234567.89");
  BOOST_TEST(num(cast(pg::money, "$123.00")) == "123.00");
  // An ungrouped positive amount is a slice of the input: borrowed, not copied.
  const std::string plain = "$1234567.89";
  const auto v = cast(pg::money, plain);
  BOOST_TEST(static_cast<const void*>(v.get<replicant::numeric>().view().data()) ==
             static_cast<const void*>(plain.data() + 1));
}

BOOST_AUTO_TEST_CASE(money_in_any_other_shape_stays_the_original_string) {
  for (const char* other : {"1.234,56",
                            "1.234,56 €",
                            "€1.234,56",
                            "$1,234,56",
                            "$1,2345.00",
                            "$12,34.00",
                            "$,123.00",
                            "$1,234.5",
                            "$1234.567",
                            "($5.00)",
                            "$5",
                            "5.00",
                            "$-5.00",
                            "- $5.00",
                            "$ 5.00",
                            "￥1,234",
                            "Fr. 1'234.56",
                            "$1,234.56 ",
                            "",
                            "$",
                            "-$",
                            "$.50",
                            "$1,.00",
                            "$1234,567.00",
                            "$12345,678.00",
                            "$1,234567.00",
                            "$1,234,5678.00",
                            "--$5.00",
                            "$5.00-"}) {
    expect_string_fallback(pg::money, other);
  }
}

BOOST_AUTO_TEST_CASE(unknown_types_are_raw_text) {
  expect_string_fallback(600, "(1,2)");                     // point
  expect_string_fallback(3904, "[1,10)");                   // int4range
  expect_string_fallback(1020, "(1,1),(0,0);(2,2),(1,1)");  // box[], whose delimiter is ';'
  expect_string_fallback(16'384, "{a,b}");                  // a user type (e.g. an enum array or a domain)
  expect_string_fallback(0, "anything");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(cast_text_arrays)

BOOST_AUTO_TEST_CASE(flat_arrays_with_nulls_and_quoting) {
  const std::string s = R"({1,NULL,"NULL","a b","q\"x","b\\s","",null,NuLl,plain})";
  const auto v = cast(pg::text_array, s);
  const auto& a = elements(v);
  BOOST_TEST_REQUIRE(a.size() == 10U);
  BOOST_TEST(a.dimensions() == 1U);
  BOOST_TEST(a.lower_bound() == 1);
  BOOST_TEST(a[0].get<replicant::text>().view() == "1");
  BOOST_TEST(a[1].is_null());
  BOOST_TEST(a[2].get<replicant::text>().view() == "NULL");  // quoted: the string
  BOOST_TEST(a[3].get<replicant::text>().view() == "a b");
  BOOST_TEST(a[4].get<replicant::text>().view() == "q\"x");
  BOOST_TEST(a[5].get<replicant::text>().view() == "b\\s");
  BOOST_TEST(a[6].get<replicant::text>().view().empty());
  BOOST_TEST(a[7].is_null());  // unquoted NULL in any case
  BOOST_TEST(a[8].is_null());
  // Elements without escapes borrow the input; unescaped ones own their copy.
  BOOST_TEST(!a[9].get<replicant::text>().is_owned());
  BOOST_TEST(static_cast<const void*>(a[9].get<replicant::text>().view().data()) ==
             static_cast<const void*>(s.data() + s.find("plain")));
  BOOST_TEST(a[4].get<replicant::text>().is_owned());
}

BOOST_AUTO_TEST_CASE(the_empty_array_has_no_dimensions) {
  for (const auto oid : {pg::int4_array, pg::text_array, pg::numeric_array}) {
    const auto v = cast(oid, "{}");
    BOOST_TEST(elements(v).empty());
    BOOST_TEST(elements(v).dimensions() == 0U);
  }
}

BOOST_AUTO_TEST_CASE(multidimensional_arrays_nest) {
  const auto two = cast(pg::int4_array, "{{1,2},{3,NULL}}");
  BOOST_TEST(elements(two).dimensions() == 2U);
  BOOST_TEST(elements(two)[1].get<array>()[0].get<std::int64_t>() == 3);
  BOOST_TEST(elements(two)[1].get<array>()[1].is_null());
  const auto three = cast(pg::int8_array, "{{{1,2},{3,4}},{{5,6},{NULL,8}}}");
  BOOST_TEST(elements(three).dimensions() == 3U);
  BOOST_TEST(elements(three)[1].get<array>()[1].get<array>()[0].is_null());
  BOOST_TEST(elements(three)[1].get<array>()[1].get<array>()[1].get<std::int64_t>() == 8);
  const auto six = cast(pg::int4_array, "{{{{{{1}}}}}}");  // PostgreSQL's maximum, MAXDIM = 6
  BOOST_TEST(elements(six).dimensions() == 6U);
}

BOOST_AUTO_TEST_CASE(every_cast_type_nests_with_its_scalar_semantics) {
  const auto ts =
      cast(pg::timestamptz_array, R"({{"2024-01-01 00:00:00+00",infinity},{NULL,"2024-06-01 12:30:00.5+00"}})");
  BOOST_TEST(elements(ts)[0].get<array>()[0].holds<replicant::timestamptz>());
  BOOST_TEST((elements(ts)[0].get<array>()[1].get<replicant::timestamptz>() == replicant::timestamptz::infinity()));
  BOOST_TEST(elements(ts)[1].get<array>()[0].is_null());

  const auto n = cast(pg::numeric_array, "{{1.50,NaN},{-Infinity,NULL}}");
  BOOST_TEST(num(elements(n)[0].get<array>()[0]) == "1.50");
  BOOST_TEST(elements(n)[0].get<array>()[1].get<replicant::numeric>().is_nan());

  const auto j = cast(pg::jsonb_array, R"({{"{\"a\": [1, \"x\"]}",null},{"\"s\"","[]"}})");
  BOOST_TEST(elements(j)[0].get<array>()[0].get<replicant::json>().view() == R"({"a": [1, "x"]})");
  BOOST_TEST(elements(j)[0].get<array>()[1].is_null());

  const auto b = cast(pg::boolean_array, "{{t,f},{NULL,t}}");
  BOOST_TEST(elements(b)[0].get<array>()[1].get<bool>() == false);

  const auto by = cast(pg::bytea_array, R"({"\\xdead","\\x",NULL})");
  BOOST_TEST(elements(by)[0].get<replicant::bytea>().size() == 2U);
  BOOST_TEST(elements(by)[1].get<replicant::bytea>().empty());

  const auto d = cast(pg::date_array, R"({"0044-03-15 BC",infinity,2024-02-29})");
  BOOST_TEST(elements(d)[0].get<replicant::date>().year() == -43);

  const auto f = cast(pg::float8_array, "{{0.1,Infinity},{-0,NaN}}");
  BOOST_TEST(std::isnan(elements(f)[1].get<array>()[1].get<double>()));

  const auto m = cast(pg::money_array, R"({$1.50,"-$1,234.56",NULL})");
  BOOST_TEST(num(elements(m)[1]) == "-1234.56");

  const auto u = cast(pg::uuid_array, "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,NULL}");
  BOOST_TEST(elements(u)[0].holds<replicant::uuid>());

  const auto t = cast(pg::time_array, "{10:00:01.5,24:00:00}");
  BOOST_TEST(elements(t)[1].get<replicant::time_of_day>().hour() == 24);

  for (const auto oid : {pg::int2_array, pg::oid_array}) {
    BOOST_TEST(elements(cast(oid, "{1,NULL}"))[0].get<std::int64_t>() == 1);
  }
  for (const auto oid : {pg::varchar_array, pg::bpchar_array, pg::name_array, pg::internal_char_array, pg::xml_array}) {
    BOOST_TEST(elements(cast(oid, R"({x,"y z"})"))[1].get<replicant::text>().view() == "y z");
  }
  BOOST_TEST(elements(cast(pg::json_array, R"({"{\"a\":1}",NULL})"))[0].get<replicant::json>().view() == R"({"a":1})");
  BOOST_TEST(elements(cast(pg::float4_array, "{1.5,NULL}"))[0].get<double>() == 1.5);
  BOOST_TEST(elements(cast(pg::timestamp_array, R"({"2020-01-01 10:00:00"})"))[0].holds<replicant::timestamp>());
}

BOOST_AUTO_TEST_CASE(interval_and_timetz_elements_stay_raw) {
  const auto i = cast(pg::interval_array, R"({{"1 year","-00:00:01"},{"2 mons",NULL}})");
  BOOST_TEST(elements(i)[0].get<array>()[0].get<replicant::text>().view() == "1 year");
  BOOST_TEST(elements(i)[0].get<array>()[1].get<replicant::text>().view() == "-00:00:01");
  BOOST_TEST(elements(i)[1].get<array>()[1].is_null());
  const auto t = cast(pg::timetz_array, R"({12:00:00+05,"23:59:59.5-03:30"})");
  BOOST_TEST(elements(t)[0].get<replicant::text>().view() == "12:00:00+05");
  BOOST_TEST(elements(t)[1].get<replicant::text>().view() == "23:59:59.5-03:30");
}

BOOST_AUTO_TEST_CASE(bounds_decoration_sets_lower_bounds) {
  const auto one = cast(pg::int4_array, "[0:1]={1,2}");
  BOOST_TEST(elements(one).lower_bound() == 0);
  BOOST_TEST(elements(one).size() == 2U);
  const auto two = cast(pg::int4_array, "[2:3][-1:0]={{1,2},{3,4}}");
  BOOST_TEST(elements(two).lower_bound() == 2);
  BOOST_TEST(elements(two)[0].get<array>().lower_bound() == -1);
  BOOST_TEST(elements(two)[1].get<array>()[1].get<std::int64_t>() == 4);
}

BOOST_AUTO_TEST_CASE(elements_are_lenient_like_scalars) {
  const auto v = cast(pg::int4_array, "{1,x,3}");
  BOOST_TEST(elements(v)[0].get<std::int64_t>() == 1);
  BOOST_TEST(elements(v)[1].get<replicant::text>().view() == "x");
  const auto d = cast(pg::date_array, R"({2024-02-30,"not a date"})");
  BOOST_TEST(elements(d)[0].get<replicant::text>().view() == "2024-02-30");
  BOOST_TEST(elements(d)[1].get<replicant::text>().view() == "not a date");
  BOOST_TEST(elements(d)[1].get<replicant::text>().is_owned() == false);  // no escapes: borrowed
}

BOOST_AUTO_TEST_CASE(malformed_numeric_or_bytea_elements_are_decode_failures) {
  expect_decode_failure(pg::numeric_array, "{1,abc}");
  expect_decode_failure(pg::numeric_array, "{{1,2},{3,1e5}}");
  expect_decode_failure(pg::numeric_array, R"({"1.5 "})");
  expect_decode_failure(pg::bytea_array, R"({"\\xzz"})");
  expect_decode_failure(pg::bytea_array, "{abc}");
}

BOOST_AUTO_TEST_CASE(malformed_structure_delivers_the_whole_string) {
  for (const char* bad : {"",
                          "{",
                          "}",
                          "{1,2",
                          "{1}}",
                          "{1},",
                          "1,2",
                          "{,}",
                          "{1,}",
                          "{,1}",
                          "{{1},{2,3}}",
                          "{{1},2}",
                          "{1,{2}}",
                          "{{}}",
                          R"({"a)",
                          R"({"a"b})",
                          "{a b}",
                          "{ 1}",
                          "[1:3]={1,2}",
                          "[1:2]{1,2}",
                          "[1:2][1:1]={1,2}",
                          "[1:1]={{1}}",
                          "[2:1]={}",
                          "[1:1]={}",
                          "{{{{{{{1}}}}}}}",
                          "[a:1]={1}",
                          "[1:99999999999]={1}"}) {
    expect_string_fallback(pg::int4_array, bad);
  }
  expect_string_fallback(pg::numeric_array, "{1,2");  // structure, not an element, so not a failure
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(value_free)

// Malformed inputs seeded with a distinctive secret: no error message may contain any of it.
BOOST_AUTO_TEST_CASE(errors_never_contain_the_input) {
  const std::string secret = "Hunter2-TOPSECRET-7c1e";
  for (const auto& [oid, input] :
       std::vector<std::pair<std::uint32_t, std::string>>{{pg::numeric, secret},
                                                          {pg::numeric, "12." + secret},
                                                          {pg::bytea, "\\x" + secret},
                                                          {pg::bytea, secret},
                                                          {pg::numeric_array, "{1,\"" + secret + "\"}"},
                                                          {pg::bytea_array, "{\"\\\\x00\",\"" + secret + "\"}"}}) {
    const auto r = cast_text(oid, input);
    BOOST_TEST_REQUIRE(!r.has_value());
    const std::string message = r.error().message();
    BOOST_TEST(message.find(secret) == std::string::npos);
    BOOST_TEST(message.find("Hunter2") == std::string::npos);
    BOOST_TEST(message.find("TOPSECRET") == std::string::npos);
    BOOST_TEST(std::string(r.error().category().name()) == "replicant");
    BOOST_TEST(r.error().value() == static_cast<int>(errc::decode_failure));
  }
}

// Lenient paths never fail at all, so they cannot leak through an error either.
BOOST_AUTO_TEST_CASE(lenient_types_never_fail) {
  const std::string secret = "Hunter2-TOPSECRET-7c1e";
  for (const auto oid : {pg::boolean, pg::int2, pg::int4, pg::int8, pg::oid, pg::float4, pg::float8, pg::money,
                         pg::date, pg::time, pg::timestamp, pg::timestamptz, pg::uuid, pg::int4_array,
                         pg::timestamptz_array, pg::text_array, std::uint32_t{424242}}) {
    BOOST_TEST(cast_text(oid, secret).has_value());
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // model_cast_tests
