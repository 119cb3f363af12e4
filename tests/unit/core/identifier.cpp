// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#include <replicant/core/identifier.hpp>

#include <boost/test/unit_test.hpp>

#include <replicant/core/error.hpp>

#include <set>
#include <sstream>
#include <string>
#include <type_traits>

BOOST_AUTO_TEST_SUITE(core_identifier_tests)

using replicant::identifier_error;
using namespace std::string_literals;

namespace {

// Hostile inputs, each with the error every validator must report for it. The NUL-bearing ones are
// built with std::string literals so the NUL is really part of the text.
const std::string nul_inside = "pub\0lic"s;
const std::string nul_only = "\0"s;
const std::string sixty_three(63, 'a');
const std::string sixty_four(64, 'a');

// Checks that no error message (of any code) contains the input: errors name shapes only.
auto message_leaks(const std::error_code& ec, std::string_view input) -> bool {
  if (input.size() < 2) return false;  // one-character inputs occur in any sentence
  return ec.message().find(input) != std::string::npos ||
         std::string_view(ec.category().name()).find(input) != std::string_view::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(identifier_validation)

BOOST_AUTO_TEST_CASE(accepts_plain_identifiers) {
  for (std::string_view ok : {"p", "_", "orders", "Orders", "my_pub_2", "a$b", "_x9", "ALL_CAPS"}) {
    BOOST_TEST(replicant::identifier::validate(ok).has_value(), ok);
  }
  BOOST_TEST(replicant::identifier::validate(sixty_three).has_value());
}

BOOST_AUTO_TEST_CASE(rejects_hostile_identifiers_by_shape) {
  const std::pair<std::string, identifier_error> cases[] = {
      {"", identifier_error::empty},
      {sixty_four, identifier_error::too_long},
      {std::string(1000, 'x'), identifier_error::too_long},
      {"9lives", identifier_error::bad_first_character},
      {"$x", identifier_error::bad_first_character},
      {"\"quoted\"", identifier_error::bad_first_character},
      {"a\"; DROP TABLE t; --", identifier_error::bad_character},
      {"pub'lic", identifier_error::bad_character},
      {"pub;lic", identifier_error::bad_character},
      {"pub lic", identifier_error::bad_character},
      {"pub-lic", identifier_error::bad_character},
      {"pub.lic", identifier_error::bad_character},
      {"p\\ub", identifier_error::bad_character},
      {"caf\xC3\xA9", identifier_error::bad_character},  // é: PostgreSQL would take it, our allowlist does not
      {"\xE2\x80\x8Bpub", identifier_error::bad_first_character},  // zero-width space
      {"pub\n", identifier_error::bad_character},
      {nul_inside, identifier_error::contains_nul},
      {nul_only, identifier_error::contains_nul},
  };
  for (const auto& [input, expected] : cases) {
    const auto r = replicant::identifier::validate(input);
    BOOST_TEST_CONTEXT("input of " << input.size() << " bytes") {
      BOOST_TEST_REQUIRE(!r.has_value());
      BOOST_TEST(r.error() == expected);
      BOOST_TEST(!message_leaks(r.error(), input));
    }
  }
}

BOOST_AUTO_TEST_CASE(slot_names_follow_postgres_rule) {
  for (std::string_view ok : {"s", "orders_cdc", "9lives", "_", "a1_b2"}) {
    BOOST_TEST(replicant::identifier::validate_slot_name(ok).has_value(), ok);
  }
  BOOST_TEST(replicant::identifier::validate_slot_name(sixty_three).has_value());
  const std::pair<std::string, identifier_error> cases[] = {
      {"", identifier_error::empty},
      {sixty_four, identifier_error::too_long},
      {"Orders", identifier_error::bad_character},  // PostgreSQL refuses upper case in slot names
      {"a$b", identifier_error::bad_character},
      {"slot\"; DROP", identifier_error::bad_character},
      {"slot'", identifier_error::bad_character},
      {"sl\xC3\xB6t", identifier_error::bad_character},
      {nul_inside, identifier_error::contains_nul},
  };
  for (const auto& [input, expected] : cases) {
    const auto r = replicant::identifier::validate_slot_name(input);
    BOOST_TEST_CONTEXT("input of " << input.size() << " bytes") {
      BOOST_TEST_REQUIRE(!r.has_value());
      BOOST_TEST(r.error() == expected);
      BOOST_TEST(!message_leaks(r.error(), input));
    }
  }
}

BOOST_AUTO_TEST_CASE(errors_have_their_own_category_and_fixed_messages) {
  BOOST_TEST(std::string_view(replicant::identifier_category().name()) == "replicant.identifier");
  std::set<std::string> messages;
  for (int v = 1; v <= static_cast<int>(identifier_error::invalid_utf8); ++v) {
    const std::string m = replicant::make_error_code(static_cast<identifier_error>(v)).message();
    BOOST_TEST(m != "unknown identifier error");
    BOOST_TEST(messages.insert(m).second, m);
  }
  BOOST_TEST(std::error_code(identifier_error::empty) != std::error_code(replicant::errc::invalid_identifier));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(quoting)

BOOST_AUTO_TEST_CASE(quote_identifier_doubles_quotes_and_keeps_case) {
  BOOST_TEST(replicant::quote_identifier("orders").value() == "\"orders\"");
  BOOST_TEST(replicant::quote_identifier("MyPub").value() == "\"MyPub\"");
  BOOST_TEST(replicant::quote_identifier("a\"b").value() == "\"a\"\"b\"");
  BOOST_TEST(replicant::quote_identifier("\"").value() == "\"\"\"\"");
  BOOST_TEST(replicant::quote_identifier("x\"; DROP TABLE t; --").value() == "\"x\"\"; DROP TABLE t; --\"");
  BOOST_TEST(replicant::quote_identifier("it's").value() == "\"it's\"");
  BOOST_TEST(replicant::quote_identifier("back\\slash").value() == "\"back\\slash\"");
  BOOST_TEST(replicant::quote_identifier("caf\xC3\xA9").value() == "\"caf\xC3\xA9\"");
  BOOST_TEST(replicant::quote_identifier(sixty_three).value().size() == 65U);
  // Sixty-three bytes of multi-byte UTF-8 (21 three-byte characters) is still within NAMEDATALEN.
  std::string wide;
  for (int i = 0; i < 21; ++i) wide += "\xE2\x82\xAC";  // €
  BOOST_TEST(replicant::quote_identifier(wide).has_value());
}

BOOST_AUTO_TEST_CASE(quote_identifier_refuses_what_postgres_would_change_or_cut) {
  const std::pair<std::string, identifier_error> cases[] = {
      {"", identifier_error::empty},
      {sixty_four, identifier_error::too_long},
      {std::string(22, 'x') + std::string(42, 'y'), identifier_error::too_long},
      {nul_inside, identifier_error::contains_nul},
      {"bad\xFF", identifier_error::invalid_utf8},
      {"\xC0\xAF", identifier_error::invalid_utf8},          // overlong '/'
      {"\xED\xA0\x80", identifier_error::invalid_utf8},      // surrogate
      {"\xF4\x90\x80\x80", identifier_error::invalid_utf8},  // above U+10FFFF
      {"\xE2\x82", identifier_error::invalid_utf8},          // truncated
  };
  for (const auto& [input, expected] : cases) {
    const auto r = replicant::quote_identifier(input);
    BOOST_TEST_CONTEXT("input of " << input.size() << " bytes") {
      BOOST_TEST_REQUIRE(!r.has_value());
      BOOST_TEST(r.error() == expected);
      BOOST_TEST(!message_leaks(r.error(), input));
    }
  }
}

BOOST_AUTO_TEST_CASE(quote_literal_doubles_single_quotes_without_e_syntax) {
  BOOST_TEST(replicant::quote_literal("").value() == "''");
  BOOST_TEST(replicant::quote_literal("on").value() == "'on'");
  BOOST_TEST(replicant::quote_literal("it's").value() == "'it''s'");
  BOOST_TEST(replicant::quote_literal("'; DROP TABLE t; --").value() == "'''; DROP TABLE t; --'");
  BOOST_TEST(replicant::quote_literal("\"p1\",\"p2\"").value() == "'\"p1\",\"p2\"'");
  BOOST_TEST(replicant::quote_literal("caf\xC3\xA9").value() == "'caf\xC3\xA9'");
  // No length limit for literals.
  BOOST_TEST(replicant::quote_literal(std::string(1000, 'v')).value().size() == 1002U);
  // Never the E'' form, whatever the input.
  BOOST_TEST(replicant::quote_literal("E").value() == "'E'");
}

BOOST_AUTO_TEST_CASE(quote_literal_refuses_nul_backslash_and_bad_utf8) {
  const std::pair<std::string, identifier_error> cases[] = {
      {nul_inside, identifier_error::contains_nul}, {"a\\'; DROP TABLE t; --", identifier_error::contains_backslash},
      {"\\", identifier_error::contains_backslash}, {"trail\\", identifier_error::contains_backslash},
      {"\xFF\xFE", identifier_error::invalid_utf8},
  };
  for (const auto& [input, expected] : cases) {
    const auto r = replicant::quote_literal(input);
    BOOST_TEST_CONTEXT("input of " << input.size() << " bytes") {
      BOOST_TEST_REQUIRE(!r.has_value());
      BOOST_TEST(r.error() == expected);
      BOOST_TEST(!message_leaks(r.error(), input));
    }
  }
}

// A quoted text must parse back to the original: unquote by the grammar's rule and compare.
BOOST_AUTO_TEST_CASE(quoting_round_trips_through_the_grammar_rule) {
  const auto unquote = [](std::string_view q, char delim) {
    std::string out;
    BOOST_TEST_REQUIRE(q.size() >= 2U);
    BOOST_TEST_REQUIRE(q.front() == delim);
    BOOST_TEST_REQUIRE(q.back() == delim);
    for (std::size_t i = 1; i + 1 < q.size(); ++i) {
      if (q[i] == delim) {
        BOOST_TEST_REQUIRE(q[i + 1] == delim);  // every inner delimiter is doubled
        ++i;
      }
      out.push_back(q[i]);
    }
    return out;
  };
  for (std::string_view s : {"a", "\"", "\"\"", "'", "''", "x\"y'z", "a\"\"\"b", "\xE2\x82\xAC\""}) {
    BOOST_TEST(unquote(replicant::quote_identifier(s).value(), '"') == s);
    BOOST_TEST(unquote(replicant::quote_literal(s).value(), '\'') == s);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(name_types)

BOOST_AUTO_TEST_CASE(slot_name_is_validated_and_inline) {
  const auto s = replicant::slot_name::make("orders_cdc");
  BOOST_TEST_REQUIRE(s.has_value());
  BOOST_TEST(s->view() == "orders_cdc");
  BOOST_TEST(s->str() == "orders_cdc");
  BOOST_TEST((*s == replicant::slot_name::make("orders_cdc").value()));
  BOOST_TEST(!(*s == replicant::slot_name::make("orders").value()));
  std::ostringstream os;
  os << *s;
  BOOST_TEST(os.str() == "orders_cdc");
  BOOST_TEST(replicant::slot_name::make(sixty_three).value().view() == sixty_three);
  BOOST_TEST(replicant::slot_name::make("Bad").error() == identifier_error::bad_character);
  BOOST_TEST(replicant::slot_name::make(sixty_four).error() == identifier_error::too_long);
  static_assert(std::is_trivially_copyable_v<replicant::slot_name>);
  static_assert(!std::is_default_constructible_v<replicant::slot_name>);
  static_assert(!std::is_constructible_v<replicant::slot_name, std::string_view>);
}

BOOST_AUTO_TEST_CASE(table_names_display_escaped) {
  using replicant::table_ref;
  BOOST_TEST(replicant::to_string(table_ref{"public", "orders"}) == "public.orders");
  BOOST_TEST(replicant::to_string(table_ref{"Sales", "Q1 2026"}) == "\"Sales\".\"Q1 2026\"");
  BOOST_TEST(replicant::to_string(table_ref{"s", "a\"b"}) == "s.\"a\"\"b\"");
  BOOST_TEST(replicant::to_string(table_ref{"s", "x\ny"}) == "s.\"x\\x0Ay\"");
  BOOST_TEST(replicant::to_string(table_ref{"s", "back\\x0Aslash"}) == "s.\"back\\x5Cx0Aslash\"");
  BOOST_TEST(replicant::to_string(table_ref{"s", "caf\xC3\xA9"}) == "s.\"caf\xC3\xA9\"");
  BOOST_TEST(replicant::to_string(table_ref{"s", "\xFF"}) == "s.\"\\xFF\"");
  BOOST_TEST(replicant::to_string(table_ref{"", "t"}) == "\"\".t");
  const replicant::table_name owned{"public", "orders"};
  const table_ref view = owned;
  BOOST_TEST((view == table_ref{"public", "orders"}));
  // Explicit only: a lone string is not a table name.
  static_assert(!std::is_convertible_v<std::string, table_ref>);
  static_assert(!std::is_constructible_v<table_ref, std::string>);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // core_identifier_tests
