// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#include <replicant/core/error.hpp>

#include <boost/test/unit_test.hpp>

#include <set>
#include <string>

BOOST_AUTO_TEST_SUITE(core_error_tests)

BOOST_AUTO_TEST_SUITE(errc)

BOOST_AUTO_TEST_CASE(category_is_named_replicant) {
  const std::error_code ec = replicant::errc::decode_failure;  // implicit: is_error_code_enum
  BOOST_TEST(std::string{ec.category().name()} == "replicant");
  BOOST_TEST(&ec.category() == &replicant::error_category());
}

BOOST_AUTO_TEST_CASE(every_code_has_its_own_fixed_message) {
  std::set<std::string> messages;
  std::set<std::string> names;
  constexpr auto last = static_cast<int>(replicant::errc::lsn_missing);
  for (int v = static_cast<int>(replicant::errc::decode_failure); v <= last; ++v) {
    const auto m = replicant::error_category().message(v);
    BOOST_TEST(!m.empty());
    BOOST_TEST(m != "unknown replicant error");
    messages.insert(m);
    const auto name = replicant::to_string(static_cast<replicant::errc>(v));
    BOOST_TEST(name != "unknown");
    names.insert(std::string{name});
  }
  BOOST_TEST(names.size() == messages.size());
  BOOST_TEST(messages.size() == static_cast<std::size_t>(replicant::errc::lsn_missing));
  BOOST_TEST(replicant::error_category().message(0) == "unknown replicant error");
}

BOOST_AUTO_TEST_CASE(classifies_transient_and_fatal_codes) {
  BOOST_TEST(!replicant::is_fatal({}));
  BOOST_TEST(!replicant::is_fatal(replicant::errc::connection_failed));
  BOOST_TEST(!replicant::is_fatal(replicant::errc::cancelled));
  BOOST_TEST(replicant::is_fatal(replicant::errc::decode_failure));
  BOOST_TEST(replicant::is_fatal(replicant::errc::sink_failed));
  BOOST_TEST(replicant::is_fatal(std::make_error_code(std::errc::no_space_on_device)));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // core_error_tests
