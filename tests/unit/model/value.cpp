// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#include <replicant/model/value.hpp>

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <variant>
#include <vector>

BOOST_AUTO_TEST_SUITE(model_value_tests)

using replicant::array;
using replicant::bytea;
using replicant::date;
using replicant::numeric;
using replicant::text;
using replicant::time_of_day;
using replicant::timestamp;
using replicant::timestamptz;
using replicant::value;
using replicant::value_kind;

// Values are secrets: there is deliberately no way to stream one into a log.
template <class T>
concept streamable = requires(std::ostream& os, const T& v) { os << v; };
static_assert(!streamable<value> && !streamable<numeric> && !streamable<array> && !streamable<date>);
// Integers arrive as int64 whatever their width; characters are not integers here.
static_assert(std::is_constructible_v<value, std::int16_t> && std::is_constructible_v<value, std::uint32_t>);
static_assert(!std::is_constructible_v<value, char> && !std::is_constructible_v<value, std::uint64_t>);
static_assert(std::is_nothrow_move_constructible_v<value> && std::is_nothrow_move_constructible_v<array>);

namespace {

auto n(std::string_view s) -> numeric { return numeric::parse(s).value(); }

}  // namespace

BOOST_AUTO_TEST_SUITE(text_type)

BOOST_AUTO_TEST_CASE(borrows_until_told_to_own) {
  std::string frame = "row bytes";
  text t = text::borrow(frame);
  BOOST_TEST(!t.is_owned());
  text copy = t;  // copying a borrowed string borrows the same memory
  BOOST_TEST(static_cast<const void*>(copy.view().data()) == static_cast<const void*>(frame.data()));
  t.own();
  BOOST_TEST(t.is_owned());
  frame.assign(frame.size(), 'X');  // the frame is reused for the next message
  BOOST_TEST(t.view() == "row bytes");
  BOOST_TEST(copy.view() == "XXXXXXXXX");
}

BOOST_AUTO_TEST_CASE(owned_copies_are_deep) {
  const text a = text::copy("payload");
  const text b = a;  // NOLINT(performance-unnecessary-copy-initialization)
  BOOST_TEST(b.is_owned());
  BOOST_TEST(static_cast<const void*>(a.view().data()) != static_cast<const void*>(b.view().data()));
  BOOST_TEST((a == b));
  text c;
  c = b;
  text d = std::move(c);
  BOOST_TEST(d.view() == "payload");
  BOOST_TEST(d.str() == "payload");
  std::string_view sv = d;  // implicit view
  BOOST_TEST(sv.size() == 7U);
  BOOST_TEST((text::borrow("a") < text::borrow("b")));
  BOOST_TEST(text{}.empty());
  BOOST_TEST(text{}.is_owned());  // depends on nothing
}

BOOST_AUTO_TEST_CASE(short_and_long_owned_strings_survive_copy_move_and_assignment) {
  // Up to 16 bytes are kept inline, longer strings on the heap; both must behave the same.
  for (const std::string& source :
       {std::string{}, std::string("short"), std::string(16, 's'), std::string(17, 'l'), std::string(1000, 'x')}) {
    BOOST_TEST_CONTEXT("length " << source.size()) {
      const text owned = text::copy(source);
      BOOST_TEST(owned.is_owned());
      BOOST_TEST(owned.view() == source);
      text copied(owned);
      BOOST_TEST(copied.view() == source);
      if (!source.empty())
        BOOST_TEST(static_cast<const void*>(copied.view().data()) != static_cast<const void*>(owned.view().data()));
      text moved(std::move(copied));
      BOOST_TEST(moved.view() == source);
      BOOST_TEST(copied.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty by design
      text assigned = text::copy("something else entirely, long enough for the heap");
      assigned = moved;
      BOOST_TEST(assigned.view() == source);
      assigned = text::borrow("borrowed");
      BOOST_TEST(!assigned.is_owned());
      assigned = std::move(moved);
      BOOST_TEST(assigned.view() == source);
      const text& alias = assigned;
      assigned = alias;  // self-assignment
      BOOST_TEST(assigned.view() == source);
      text borrowed = text::borrow(source);
      borrowed.own();
      BOOST_TEST(borrowed.is_owned());
      BOOST_TEST(borrowed.view() == source);
    }
  }
  static_assert(sizeof(text) == 24 && sizeof(numeric) == 24 && sizeof(value) <= 40);
}

BOOST_AUTO_TEST_CASE(bytea_owns_or_borrows_the_same_way) {
  std::vector<std::byte> frame{std::byte{1}, std::byte{2}, std::byte{3}};
  bytea b = bytea::borrow(frame);
  BOOST_TEST(!b.is_owned());
  bytea kept = b;
  kept.own();
  frame[0] = std::byte{9};
  BOOST_TEST(std::to_integer<int>(kept.bytes()[0]) == 1);
  BOOST_TEST(std::to_integer<int>(b.bytes()[0]) == 9);
  BOOST_TEST((bytea::copy(frame) == b));
  BOOST_TEST(replicant::to_string(kept) == "\\x010203");
  BOOST_TEST(replicant::to_string(bytea{}) == "\\x");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(numeric_type)

BOOST_AUTO_TEST_CASE(compares_by_value_like_postgres) {
  BOOST_TEST((n("1.5") == n("1.50")));
  BOOST_TEST((n("0") == n("0.000")));
  BOOST_TEST((n("-0.00") == n("0")));
  BOOST_TEST((n("007") == n("7.0")));
  BOOST_TEST((n("NaN") == n("NaN")));
  BOOST_TEST((n("1.5") < n("1.51")));
  BOOST_TEST((n("-2") < n("-1.5")));
  BOOST_TEST((n("-1.5") < n("0")));
  BOOST_TEST((n("99") < n("100")));
  BOOST_TEST((n("0.09") < n("0.1")));
  BOOST_TEST((n("-Infinity") < n("-99999999999999999999")));
  BOOST_TEST((n("99999999999999999999") < n("Infinity")));
  BOOST_TEST((n("Infinity") < n("NaN")));  // NaN sorts above everything, as in PostgreSQL
  BOOST_TEST((n("1") != n("1.0000000000000000000000000001")));
  BOOST_TEST((numeric{} == n("0")));
}

BOOST_AUTO_TEST_CASE(keeps_digits_and_scale_exactly) {
  const std::string big = std::string(1000, '9') + "." + std::string(999, '0') + "1";
  const auto v = n(big);
  BOOST_TEST(v.view() == big);
  BOOST_TEST(v.scale() == 1000U);
  BOOST_TEST(n("1.50").scale() == 2U);
  BOOST_TEST(n("42").scale() == 0U);
  BOOST_TEST(n("NaN").scale() == 0U);
  BOOST_TEST(replicant::to_string(v) == big);
  BOOST_TEST(n("-0.5").is_negative());
  BOOST_TEST(!n("0").is_negative());
  BOOST_TEST(n("-Infinity").is_negative());
  BOOST_TEST(n("Infinity").is_infinite());
  BOOST_TEST(!n("NaN").is_finite());
}

BOOST_AUTO_TEST_CASE(converts_to_double) {
  BOOST_TEST(n("1.5").to_double() == 1.5);
  BOOST_TEST(n("-0.1").to_double() == -0.1);
  BOOST_TEST(n("123456789012345678901234567890").to_double() == 1.2345678901234568e29);
  BOOST_TEST(std::isnan(n("NaN").to_double()));
  BOOST_TEST(n("Infinity").to_double() == std::numeric_limits<double>::infinity());
  BOOST_TEST(n("-Infinity").to_double() == -std::numeric_limits<double>::infinity());
  BOOST_TEST(n(std::string(400, '9')).to_double() == std::numeric_limits<double>::infinity());
  BOOST_TEST(n("-" + std::string(400, '9')).to_double() == -std::numeric_limits<double>::infinity());
  BOOST_TEST(n("0." + std::string(400, '0') + "1").to_double() == 0.0);
}

BOOST_AUTO_TEST_CASE(converts_to_int64_with_range_checks) {
  BOOST_TEST(n("42").to_int64().value() == 42);
  BOOST_TEST(n("42.000").to_int64().value() == 42);
  BOOST_TEST(n("-0").to_int64().value() == 0);
  BOOST_TEST(n("9223372036854775807").to_int64().value() == std::numeric_limits<std::int64_t>::max());
  BOOST_TEST(n("-9223372036854775808").to_int64().value() == std::numeric_limits<std::int64_t>::min());
  const auto over = n("9223372036854775808").to_int64();
  BOOST_TEST_REQUIRE(!over.has_value());
  BOOST_TEST((over.error() == std::errc::result_out_of_range));
  BOOST_TEST((n("-9223372036854775809").to_int64().error() == std::errc::result_out_of_range));
  BOOST_TEST((n(std::string(30, '1')).to_int64().error() == std::errc::result_out_of_range));
  BOOST_TEST((n("1.5").to_int64().error() == std::errc::invalid_argument));  // never truncated silently
  BOOST_TEST((n("NaN").to_int64().error() == std::errc::invalid_argument));
  BOOST_TEST((n("Infinity").to_int64().error() == std::errc::invalid_argument));
}

BOOST_AUTO_TEST_CASE(parse_rejects_what_the_server_never_prints) {
  for (const char* bad : {"", "1e5", "+1", ".5", "1.", "nan", "- 1", "1_000"}) {
    const auto r = numeric::parse(bad);
    BOOST_TEST(!r.has_value());
    if (!r) BOOST_TEST((r.error() == replicant::errc::decode_failure));
  }
}

BOOST_AUTO_TEST_CASE(own_detaches_from_the_input) {
  std::string frame = "12.50";
  auto v = n(frame);
  BOOST_TEST(!v.is_owned());
  v.own();
  frame = "99.99";
  BOOST_TEST(v.view() == "12.50");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(temporal_types)

BOOST_AUTO_TEST_CASE(date_from_ymd_and_back) {
  const auto d = date::from_ymd(2024, 2, 29).value();
  BOOST_TEST(d.year() == 2024);
  BOOST_TEST(d.month() == 2U);
  BOOST_TEST(d.day() == 29U);
  BOOST_TEST(replicant::to_string(d) == "2024-02-29");
  BOOST_TEST(date::from_ymd(2000, 1, 1)->days_since_2000() == 0);
  BOOST_TEST(replicant::to_string(*date::from_ymd(-43, 3, 15)) == "0044-03-15 BC");
  BOOST_TEST(replicant::to_string(*date::from_ymd(0, 1, 1)) == "0001-01-01 BC");
  BOOST_TEST(replicant::to_string(*date::from_ymd(12345, 6, 7)) == "12345-06-07");
  BOOST_TEST(replicant::to_string(*date::from_ymd(5'874'897, 12, 31)) == "5874897-12-31");
  BOOST_TEST(replicant::to_string(*date::from_ymd(-4713, 11, 24)) == "4714-11-24 BC");
  BOOST_TEST(!date::from_ymd(2023, 2, 29).has_value());
  BOOST_TEST(!date::from_ymd(2024, 4, 31).has_value());
  BOOST_TEST(!date::from_ymd(2024, 13, 1).has_value());
  BOOST_TEST(!date::from_ymd(-4713, 11, 23).has_value());
  BOOST_TEST(!date::from_ymd(5'874'898, 1, 1).has_value());
}

BOOST_AUTO_TEST_CASE(date_infinities_order_at_the_ends) {
  const auto d = date::from_ymd(1, 1, 1).value();
  BOOST_TEST((date::minus_infinity() < d));
  BOOST_TEST((d < date::infinity()));
  BOOST_TEST(!date::infinity().is_finite());
  BOOST_TEST(!date::infinity().to_sys_days().has_value());
  BOOST_TEST(replicant::to_string(date::infinity()) == "infinity");
  BOOST_TEST(replicant::to_string(date::minus_infinity()) == "-infinity");
  using namespace std::chrono;
  BOOST_TEST((date::from_ymd(1970, 1, 1)->to_sys_days().value() == sys_days{}));
  BOOST_TEST((date::from_ymd(2024, 3, 1)->to_sys_days().value() == sys_days{year{2024} / March / 1}));
}

BOOST_AUTO_TEST_CASE(time_of_day_fields) {
  const time_of_day t(13 * 3'600'000'000LL + 14 * 60'000'000LL + 15'000'100LL);
  BOOST_TEST(t.hour() == 13);
  BOOST_TEST(t.minute() == 14);
  BOOST_TEST(t.second() == 15);
  BOOST_TEST(t.microsecond() == 100);
  BOOST_TEST(replicant::to_string(t) == "13:14:15.0001");
  BOOST_TEST(replicant::to_string(time_of_day(86'400'000'000)) == "24:00:00");
  BOOST_TEST(t.to_duration().count() == t.micros_since_midnight());
}

BOOST_AUTO_TEST_CASE(timestamps_split_and_convert) {
  const timestamp before(-1);  // 1999-12-31 23:59:59.999999
  BOOST_TEST(before.date_part().year() == 1999);
  BOOST_TEST(before.time_part().microsecond() == 999'999);
  BOOST_TEST(replicant::to_string(before) == "1999-12-31 23:59:59.999999");
  const timestamptz epoch(-946'684'800'000'000);
  BOOST_TEST(replicant::to_string(epoch) == "1970-01-01 00:00:00+00");
  BOOST_TEST(epoch.to_sys_time().value().time_since_epoch().count() == 0);
  BOOST_TEST(before.to_local_time().value().time_since_epoch().count() == 946'684'799'999'999);
  BOOST_TEST(!timestamptz::infinity().to_sys_time().has_value());
  BOOST_TEST(!timestamptz::minus_infinity().to_sys_time().has_value());
  // The last years of PostgreSQL's range do not fit int64 microseconds since 1970.
  BOOST_TEST(!timestamptz(9'223'371'331'199'999'999).to_sys_time().has_value());
  BOOST_TEST(replicant::to_string(timestamptz(9'223'371'331'199'999'999)) == "294276-12-31 23:59:59.999999+00");
  BOOST_TEST(replicant::to_string(timestamp::infinity()) == "infinity");
  BOOST_TEST(replicant::to_string(timestamptz::minus_infinity()) == "-infinity");
  BOOST_TEST((timestamptz::minus_infinity() < epoch && epoch < timestamptz::infinity()));
  static_assert(timestamptz::has_time_zone && !timestamp::has_time_zone);
  static_assert(!std::is_same_v<timestamp, timestamptz>);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(value_type)

BOOST_AUTO_TEST_CASE(default_is_null) {
  const value v;
  BOOST_TEST(v.is_null());
  BOOST_TEST((v.kind() == value_kind::null));
  BOOST_TEST((v == value(replicant::null)));
  BOOST_TEST(replicant::to_string(v) == "NULL");
}

BOOST_AUTO_TEST_CASE(accessors) {
  const value v(std::int16_t{-7});
  BOOST_TEST(v.holds<std::int64_t>());
  BOOST_TEST(!v.holds<double>());
  BOOST_TEST(v.get<std::int64_t>() == -7);
  BOOST_TEST(v.get_if<double>() == nullptr);
  BOOST_TEST((v.kind() == value_kind::int64));
  BOOST_CHECK_THROW(static_cast<void>(v.get<text>()), std::bad_variant_access);
  BOOST_TEST(std::holds_alternative<std::int64_t>(v.variant()));
  const auto doubled = v.visit([](const auto& x) -> std::int64_t {
    if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::int64_t>) return 2 * x;
    return 0;
  });
  BOOST_TEST(doubled == -14);
  BOOST_TEST(value(std::uint32_t{4'294'967'295U}).get<std::int64_t>() == 4'294'967'295);
  BOOST_TEST(value(1.5F).get<double>() == 1.5);
  BOOST_TEST(value(true).get<bool>());
}

BOOST_AUTO_TEST_CASE(kinds_follow_the_variant_order) {
  BOOST_TEST((value(true).kind() == value_kind::boolean));
  BOOST_TEST((value(0.5).kind() == value_kind::float64));
  BOOST_TEST((value(numeric{}).kind() == value_kind::numeric));
  BOOST_TEST((value(text{}).kind() == value_kind::text));
  BOOST_TEST((value(bytea{}).kind() == value_kind::bytea));
  BOOST_TEST((value(date{}).kind() == value_kind::date));
  BOOST_TEST((value(time_of_day{}).kind() == value_kind::time));
  BOOST_TEST((value(timestamp{}).kind() == value_kind::timestamp));
  BOOST_TEST((value(timestamptz{}).kind() == value_kind::timestamptz));
  BOOST_TEST((value(replicant::uuid{}).kind() == value_kind::uuid));
  BOOST_TEST((value(replicant::json{}).kind() == value_kind::json));
  BOOST_TEST((value(array{}).kind() == value_kind::array));
}

BOOST_AUTO_TEST_CASE(equality_is_postgres_equality) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  BOOST_TEST((value(nan) == value(nan)));  // float8 'NaN' = 'NaN' is true in SQL
  BOOST_TEST((value(0.0) == value(-0.0)));
  BOOST_TEST((value(n("1.5")) == value(n("1.50"))));
  BOOST_TEST((value(std::int64_t{1}) != value(1.0)));  // different alternatives
  BOOST_TEST((value(text::borrow("a")) != value(replicant::json(text::borrow("a")))));
  BOOST_TEST((value() != value(false)));
  BOOST_TEST((value(array({value(1), value()})) == value(array({value(1), value()}))));
  BOOST_TEST((value(array({value(1)}, 0)) != value(array({value(1)}, 1))));  // lower bounds differ
}

BOOST_AUTO_TEST_CASE(own_reaches_into_arrays) {
  std::string frame = "abc 12.5";
  value v(array({value(array({value(text::borrow(std::string_view(frame).substr(0, 3))), value()})),
                 value(n(std::string_view(frame).substr(4)))}));
  v.own();
  frame.assign(frame.size(), '7');  // the frame is reused
  BOOST_TEST(v.get<array>()[0].get<array>()[0].get<text>().view() == "abc");
  BOOST_TEST(v.get<array>()[0].get<array>()[0].get<text>().is_owned());
  BOOST_TEST(v.get<array>()[1].get<numeric>().view() == "12.5");
}

BOOST_AUTO_TEST_CASE(arrays_know_their_shape) {
  const array flat({value(1), value(2)});
  BOOST_TEST(flat.dimensions() == 1U);
  BOOST_TEST(flat.size() == 2U);
  std::int64_t sum = 0;
  for (const auto& e : flat) sum += e.get<std::int64_t>();
  BOOST_TEST(sum == 3);
  const array grid({value(flat), value(flat)}, 0);
  BOOST_TEST(grid.dimensions() == 2U);
  BOOST_TEST(grid.lower_bound() == 0);
  BOOST_TEST(array{}.dimensions() == 0U);
  BOOST_TEST(grid.elements().size() == 2U);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(to_string_fn)

BOOST_AUTO_TEST_CASE(scalars_print_like_postgres) {
  BOOST_TEST(replicant::to_string(value(true)) == "t");
  BOOST_TEST(replicant::to_string(value(false)) == "f");
  BOOST_TEST(replicant::to_string(value(std::numeric_limits<std::int64_t>::min())) == "-9223372036854775808");
  BOOST_TEST(replicant::to_string(value(n("-1.50"))) == "-1.50");
  BOOST_TEST(replicant::to_string(value(text::borrow("x y"))) == "x y");
  BOOST_TEST(replicant::to_string(value(replicant::uuid(
                 {0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}))) ==
             "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
}

BOOST_AUTO_TEST_CASE(floats_use_postgres_notation) {
  const auto f = [](double d) { return replicant::to_string(value(d)); };
  BOOST_TEST(f(std::numeric_limits<double>::quiet_NaN()) == "NaN");
  BOOST_TEST(f(std::numeric_limits<double>::infinity()) == "Infinity");
  BOOST_TEST(f(-std::numeric_limits<double>::infinity()) == "-Infinity");
  BOOST_TEST(f(0.1) == "0.1");
  BOOST_TEST(f(-0.0) == "-0");
  BOOST_TEST(f(100) == "100");
  BOOST_TEST(f(1e14) == "100000000000000");
  BOOST_TEST(f(1e15) == "1e+15");
  BOOST_TEST(f(123456789012345.6) == "123456789012345.6");
  BOOST_TEST(f(0.0001) == "0.0001");
  BOOST_TEST(f(0.00001) == "1e-05");
  BOOST_TEST(f(0.00012345) == "0.00012345");
  BOOST_TEST(f(1.5e300) == "1.5e+300");
  BOOST_TEST(f(5e-324) == "5e-324");
}

BOOST_AUTO_TEST_CASE(arrays_quote_like_array_out) {
  const array a({value(text::borrow("")), value(text::borrow("NULL")), value(), value(text::borrow("a b")),
                 value(text::borrow("q\"x")), value(text::borrow("b\\s")), value(text::borrow("a,b")),
                 value(text::borrow("{x}")), value(text::borrow("plain"))});
  BOOST_TEST(replicant::to_string(a) == R"({"","NULL",NULL,"a b","q\"x","b\\s","a,b","{x}",plain})");
  BOOST_TEST(replicant::to_string(array{}) == "{}");
  const array row({value(1), value(2)}, -1);
  BOOST_TEST(replicant::to_string(array({value(row), value(row)}, 2)) == "[2:3][-1:0]={{1,2},{1,2}}");
  BOOST_TEST(replicant::to_string(array({value(array({value(1)})), value(array({value()}))})) == "{{1},{NULL}}");
  BOOST_TEST(replicant::to_string(value(array({value(timestamptz(0))}))) == R"({"2000-01-01 00:00:00+00"})");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // model_value_tests
