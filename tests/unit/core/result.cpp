// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant::result is one type in every language mode: the release preset compiles this file again as
// C++23, where the standard library has std::expected, and it must pass unchanged.
#include <replicant/core/result.hpp>

#include <boost/test/unit_test.hpp>

#include <replicant/core/error.hpp>

#include <memory>
#include <string>

BOOST_AUTO_TEST_SUITE(core_result_tests)

namespace {

auto halve(int n) -> replicant::result<int> {
  if (n % 2 != 0) return replicant::fail(replicant::errc::invalid_options);
  return n / 2;
}

auto check_even(int n) -> replicant::result<void> {
  if (n % 2 != 0) return replicant::unexpected(make_error_code(replicant::errc::invalid_options));
  return {};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(result)

BOOST_AUTO_TEST_CASE(holds_a_value_or_an_error_code) {
  const auto ok = halve(8);
  BOOST_TEST(ok.has_value());
  BOOST_TEST(static_cast<bool>(ok));
  BOOST_TEST(*ok == 4);
  BOOST_TEST(ok.value() == 4);
  BOOST_TEST(ok.value_or(-1) == 4);

  const auto bad = halve(7);
  BOOST_TEST(!bad.has_value());
  BOOST_TEST(bad.error() == replicant::errc::invalid_options);
  BOOST_TEST(bad.value_or(-1) == -1);
  BOOST_CHECK_THROW(static_cast<void>(bad.value()), std::exception);
}

BOOST_AUTO_TEST_CASE(supports_void_and_move_only_values) {
  BOOST_TEST(check_even(2).has_value());
  BOOST_TEST(check_even(3).error() == replicant::errc::invalid_options);
  BOOST_CHECK_THROW(check_even(3).value(), std::exception);

  replicant::result<std::unique_ptr<std::string>> owned = std::make_unique<std::string>("x");
  BOOST_TEST((*owned)->size() == 1U);
  const std::unique_ptr<std::string> taken = *std::move(owned);
  BOOST_TEST(*taken == "x");
}

BOOST_AUTO_TEST_CASE(default_constructs_a_value) {
  const replicant::result<int> r;
  BOOST_TEST(r.has_value());
  BOOST_TEST(*r == 0);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // core_result_tests
