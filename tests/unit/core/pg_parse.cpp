// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#include <replicant/core/detail/pg_parse.hpp>

#include <boost/test/unit_test.hpp>

#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

BOOST_AUTO_TEST_SUITE(core_pg_parse_tests)

using replicant::detail::parse_integer;

namespace {

// What parse_integer replaced, and must keep agreeing with: std::from_chars over the whole text.
template <class Int>
auto from_chars_reference(std::string_view text, std::int64_t& out) -> bool {
  Int v{};
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  out = static_cast<std::int64_t>(v);
  return r.ec == std::errc{} && r.ptr == text.data() + text.size();
}

// Compares both readers on one text for every integer type the casting code reads, and reports
// mismatches by type size and text length only (the texts are generated, but the habit stays).
auto agree(std::string_view text) -> bool {
  bool same = true;
  const auto check = [&](auto tag) {
    using Int = decltype(tag);
    std::int64_t expected = 0;
    std::int64_t actual = 0;
    const bool ok_expected = from_chars_reference<Int>(text, expected);
    const bool ok_actual = parse_integer<Int>(text, actual);
    if (ok_expected != ok_actual || (ok_expected && expected != actual)) {
      BOOST_TEST_MESSAGE("mismatch for a " << sizeof(Int) << "-byte type, text of " << text.size() << " characters");
      same = false;
    }
  };
  check(std::int16_t{});
  check(std::int32_t{});
  check(std::int64_t{});
  check(std::uint32_t{});
  return same;
}

// The positive decimal text s plus delta (a few units either way), in decimal text arithmetic so
// that it works past every integer type's range.
auto shifted(std::string s, int delta) -> std::string {
  for (; delta > 0; --delta) {
    std::size_t i = s.size();
    while (i > 0 && s[i - 1] == '9') s[--i] = '0';
    if (i == 0) {
      s.insert(s.begin(), '1');
    } else {
      ++s[i - 1];
    }
  }
  for (; delta < 0; ++delta) {
    std::size_t i = s.size();
    while (i > 0 && s[i - 1] == '0') s[--i] = '9';
    --s[i - 1];
    if (s.size() > 1 && s[0] == '0') s.erase(s.begin());
  }
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(parse_integer_suite)

BOOST_AUTO_TEST_CASE(reads_each_type_to_its_limits) {
  std::int64_t v = 0;
  BOOST_TEST(parse_integer<std::int16_t>("-32768", v));
  BOOST_TEST(v == -32768);
  BOOST_TEST(!parse_integer<std::int16_t>("32768", v));
  BOOST_TEST(!parse_integer<std::int16_t>("-32769", v));
  BOOST_TEST(parse_integer<std::int32_t>("2147483647", v));
  BOOST_TEST(v == std::numeric_limits<std::int32_t>::max());
  BOOST_TEST(parse_integer<std::int64_t>("-9223372036854775808", v));
  BOOST_TEST(v == std::numeric_limits<std::int64_t>::min());
  BOOST_TEST(parse_integer<std::int64_t>("9223372036854775807", v));
  BOOST_TEST(v == std::numeric_limits<std::int64_t>::max());
  BOOST_TEST(!parse_integer<std::int64_t>("9223372036854775808", v));
  BOOST_TEST(!parse_integer<std::int64_t>("-9223372036854775809", v));
  BOOST_TEST(!parse_integer<std::int64_t>("18446744073709551616", v));  // would wrap a 64-bit accumulator
  BOOST_TEST(!parse_integer<std::int64_t>("184467440737095516150", v));
  BOOST_TEST(parse_integer<std::uint32_t>("4294967295", v));
  BOOST_TEST(v == 4294967295);
  BOOST_TEST(!parse_integer<std::uint32_t>("4294967296", v));
}

BOOST_AUTO_TEST_CASE(accepts_exactly_what_from_chars_accepts) {
  std::int64_t v = 0;
  BOOST_TEST(parse_integer<std::int32_t>("-0", v));
  BOOST_TEST(v == 0);
  BOOST_TEST(parse_integer<std::int16_t>("00000000000000000000000000000000000042", v));
  BOOST_TEST(v == 42);
  for (const std::string_view bad : {"", "-", "+1", " 1", "1 ", "--1", "1-", "0x10", "1.0", "1e3"}) {
    BOOST_TEST(!parse_integer<std::int64_t>(bad, v));
  }
  BOOST_TEST(!parse_integer<std::uint32_t>("-0", v));  // no sign at all for an unsigned type
  BOOST_TEST(!parse_integer<std::uint32_t>("-1", v));
}

BOOST_AUTO_TEST_CASE(agrees_with_from_chars_around_every_limit) {
  std::vector<std::string> texts;
  for (const std::string_view limit :
       {"32767", "65535", "2147483647", "4294967295", "9223372036854775807", "18446744073709551615"}) {
    for (int delta = -3; delta <= 3; ++delta) {
      const std::string v = shifted(std::string{limit}, delta);
      for (const std::string_view sign : {"", "-"}) {
        for (const std::string_view zeros : {"", "0", "0000000000000000000000"}) {
          texts.push_back(std::string{sign} + std::string{zeros} + v);
          texts.push_back(std::string{sign} + std::string{zeros} + v + "0");
        }
      }
    }
  }
  bool all = true;
  for (const std::string& text : texts) all = agree(text) && all;
  BOOST_TEST(all);
}

BOOST_AUTO_TEST_CASE(agrees_with_from_chars_on_generated_text) {
  // Mostly digits, sometimes a sign, a space, a letter or a dot, up to 23 characters: a fixed
  // sequence (a linear congruential generator), so a failure reproduces.
  std::uint64_t state = 0x2545F4914F6CDD1DULL;
  const auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33U;
  };
  constexpr std::string_view odd = "-+ a.";
  bool all = true;
  for (int i = 0; i < 200'000; ++i) {
    std::string text;
    const auto length = next() % 24;
    for (std::uint64_t j = 0; j < length; ++j) {
      text.push_back(next() % 8 == 0 ? odd[next() % odd.size()] : static_cast<char>('0' + next() % 10));
    }
    all = agree(text) && all;
  }
  BOOST_TEST(all);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // core_pg_parse_tests
