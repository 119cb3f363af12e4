// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#include <replicant/core/lsn.hpp>

#include <boost/test/unit_test.hpp>

#include <random>
#include <sstream>
#include <unordered_set>

BOOST_AUTO_TEST_SUITE(core_lsn_tests)

using replicant::lsn;
using namespace replicant::literals;

BOOST_AUTO_TEST_SUITE(lsn_type)

BOOST_AUTO_TEST_CASE(formats_like_postgres) {
  BOOST_TEST(replicant::to_string(lsn{0x16'B374'D848}) == "16/B374D848");
  BOOST_TEST(replicant::to_string(lsn{}) == "0/0");
  BOOST_TEST(replicant::to_string(lsn{0x1'0000'0000}) == "1/0");
  BOOST_TEST(replicant::to_string(lsn{0x50274B0}) == "0/50274B0");
  BOOST_TEST(replicant::to_string(lsn{~std::uint64_t{0}}) == "FFFFFFFF/FFFFFFFF");
  std::ostringstream os;
  os << lsn{0xA'0000'000B};
  BOOST_TEST(os.str() == "A/B");
}

BOOST_AUTO_TEST_CASE(parses_both_paddings_and_cases) {
  BOOST_TEST(replicant::parse_lsn("16/B374D848").value() == lsn{0x16'B374'D848});
  BOOST_TEST(replicant::parse_lsn("0/0").value() == lsn{});
  BOOST_TEST(replicant::parse_lsn("0/050274B0").value() == lsn{0x50274B0});  // PostgreSQL 19 padding
  BOOST_TEST(replicant::parse_lsn("ff/abcdef01").value() == lsn{0xFF'ABCD'EF01});
  BOOST_TEST(replicant::parse_lsn("FFFFFFFF/FFFFFFFF").value() == lsn{~std::uint64_t{0}});
}

BOOST_AUTO_TEST_CASE(rejects_malformed_text_without_echoing_it) {
  for (const char* bad : {"", "/", "0/", "/0", "0", "0/0/0", "G/0", "0/-1", "+1/0", " 0/0", "0/0 ", "123456789/0",
                          "0/123456789", "0x1/0", "１/0"}) {
    const auto r = replicant::parse_lsn(bad);
    BOOST_TEST_CONTEXT("input #" << std::string_view{bad}.size()) {
      BOOST_TEST(!r.has_value());
      BOOST_TEST(r.error() == replicant::errc::invalid_lsn);
      if (std::string_view{bad}.size() > 2) BOOST_TEST(r.error().message().find(bad) == std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_CASE(round_trips_random_positions) {
  std::mt19937_64 rng(20261129);
  for (int i = 0; i < 100000; ++i) {
    const lsn at{rng() >> (rng() % 64)};
    BOOST_TEST_REQUIRE(replicant::parse_lsn(replicant::to_string(at)).value() == at);
  }
}

BOOST_AUTO_TEST_CASE(orders_as_integers) {
  static_assert(lsn{1} < lsn{2});
  static_assert("1/0"_lsn > "0/FFFFFFFF"_lsn);
  static_assert(replicant::distance("0/100"_lsn, "0/40"_lsn) == -0xC0);
  static_assert(!lsn{}.is_valid() && lsn{1}.is_valid());
  std::unordered_set<lsn> seen{lsn{1}, lsn{1}, lsn{2}};
  BOOST_TEST(seen.size() == 2U);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // core_lsn_tests
