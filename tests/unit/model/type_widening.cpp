// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#include <replicant/model/type_widening.hpp>

#include <boost/test/unit_test.hpp>

#include "support/common/unprintable.hpp"

#include <cstdint>
#include <optional>

BOOST_AUTO_TEST_SUITE(model_type_widening_tests)

namespace pg_type = replicant::pg_type;
using replicant::column_info;
using replicant::numeric_modifier;
using replicant::widens;

namespace {

// The atttypmod PostgreSQL stores (varchar.c's anychar_typmodin, numeric.c's make_numeric_typmod).
constexpr auto varchar_mod(std::int32_t length) -> std::int32_t { return length + 4; }
constexpr auto numeric_mod(std::int32_t precision, std::int32_t scale) -> std::int32_t {
  return static_cast<std::int32_t>((static_cast<std::uint32_t>(precision) << 16U) |
                                   (static_cast<std::uint32_t>(scale) & 0x7FFU)) +
         4;
}

auto col(std::uint32_t type, std::int32_t typmod = -1) -> column_info { return column_info{"c", type, typmod, false}; }

}  // namespace

BOOST_AUTO_TEST_SUITE(type_widening)

BOOST_AUTO_TEST_CASE(decodes_the_catalogs_varchar_modifier) {
  BOOST_TEST(replicant::varchar_length(14) == std::optional<std::int32_t>{10});  // varchar(10), as the catalog has it
  BOOST_TEST(replicant::varchar_length(varchar_mod(1)) == std::optional<std::int32_t>{1});
  BOOST_TEST(replicant::varchar_length(varchar_mod(10485760)) == std::optional<std::int32_t>{10485760});
  BOOST_TEST(!replicant::varchar_length(-1).has_value());  // unbounded
}

BOOST_AUTO_TEST_CASE(decodes_the_catalogs_numeric_modifier) {
  BOOST_TEST(numeric_mod(10, 2) == 655366);  // numeric(10,2), as the catalog has it
  BOOST_TEST((replicant::numeric_typmod(655366) == std::optional{numeric_modifier{10, 2}}));
  BOOST_TEST((replicant::numeric_typmod(numeric_mod(1000, 0)) == std::optional{numeric_modifier{1000, 0}}));
  // PostgreSQL 15 and later allow a negative scale (rounding to tens) and one above the precision.
  BOOST_TEST((replicant::numeric_typmod(numeric_mod(5, -2)) == std::optional{numeric_modifier{5, -2}}));
  BOOST_TEST((replicant::numeric_typmod(numeric_mod(3, 5)) == std::optional{numeric_modifier{3, 5}}));
  BOOST_TEST((replicant::numeric_typmod(numeric_mod(7, -1000)) == std::optional{numeric_modifier{7, -1000}}));
  BOOST_TEST(!replicant::numeric_typmod(-1).has_value());  // unconstrained
}

BOOST_AUTO_TEST_CASE(larger_integers_widen) {
  BOOST_TEST(widens(col(pg_type::int2), col(pg_type::int4)));
  BOOST_TEST(widens(col(pg_type::int2), col(pg_type::int8)));
  BOOST_TEST(widens(col(pg_type::int4), col(pg_type::int8)));
  BOOST_TEST(!widens(col(pg_type::int8), col(pg_type::int4)));
  BOOST_TEST(!widens(col(pg_type::int4), col(pg_type::int2)));
  BOOST_TEST(!widens(col(pg_type::int4), col(pg_type::int4)));
  // Another family is not a widening, even where every value fits: the text of the values changes.
  BOOST_TEST(!widens(col(pg_type::int4), col(pg_type::numeric)));
  BOOST_TEST(!widens(col(pg_type::int4), col(pg_type::text)));
  BOOST_TEST(!widens(col(pg_type::float4), col(pg_type::float8)));
}

BOOST_AUTO_TEST_CASE(longer_or_unbounded_varchar_widens) {
  BOOST_TEST(widens(col(pg_type::varchar, varchar_mod(10)), col(pg_type::varchar, varchar_mod(20))));
  BOOST_TEST(widens(col(pg_type::varchar, varchar_mod(10)), col(pg_type::varchar)));
  BOOST_TEST(widens(col(pg_type::varchar, varchar_mod(10)), col(pg_type::text)));
  BOOST_TEST(widens(col(pg_type::varchar), col(pg_type::text)));
  BOOST_TEST(!widens(col(pg_type::varchar, varchar_mod(20)), col(pg_type::varchar, varchar_mod(10))));
  BOOST_TEST(!widens(col(pg_type::varchar), col(pg_type::varchar, varchar_mod(10))));
  BOOST_TEST(!widens(col(pg_type::varchar, varchar_mod(10)), col(pg_type::varchar, varchar_mod(10))));
  // char(n) pads with blanks: its values read differently in a longer one.
  BOOST_TEST(!widens(col(pg_type::bpchar, varchar_mod(10)), col(pg_type::bpchar, varchar_mod(20))));
  BOOST_TEST(!widens(col(pg_type::text), col(pg_type::varchar)));
}

BOOST_AUTO_TEST_CASE(larger_numeric_precision_with_the_same_scale_widens) {
  BOOST_TEST(widens(col(pg_type::numeric, numeric_mod(10, 2)), col(pg_type::numeric, numeric_mod(12, 2))));
  BOOST_TEST(widens(col(pg_type::numeric, numeric_mod(10, 2)), col(pg_type::numeric)));
  BOOST_TEST(widens(col(pg_type::numeric, numeric_mod(5, -2)), col(pg_type::numeric, numeric_mod(6, -2))));
  BOOST_TEST(!widens(col(pg_type::numeric, numeric_mod(12, 2)), col(pg_type::numeric, numeric_mod(10, 2))));
  // Another scale rewrites every value's text (1.50 becomes 1.500), even with room for every value.
  BOOST_TEST(!widens(col(pg_type::numeric, numeric_mod(10, 2)), col(pg_type::numeric, numeric_mod(12, 3))));
  BOOST_TEST(!widens(col(pg_type::numeric, numeric_mod(10, 2)), col(pg_type::numeric, numeric_mod(12, 1))));
  BOOST_TEST(!widens(col(pg_type::numeric), col(pg_type::numeric, numeric_mod(12, 2))));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // model_type_widening_tests
