// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// COPY text rows (what `COPY ... TO STDOUT` sends) turned into pgoutput TupleData: every escape the
// server writes or COPY FROM reads, NULL versus the empty string, field splitting, and refusal of
// anything a server would not send, without ever echoing the row.
#include <replicant/snapshot/detail/copy_text.hpp>

#include <boost/test/unit_test.hpp>

#include <replicant/core/error.hpp>
#include <replicant/model/relation.hpp>
#include <replicant/model/tuple.hpp>

#include <cstddef>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

BOOST_AUTO_TEST_SUITE(snapshot_copy_text_tests)

using replicant::errc;
using replicant::detail::copy_text_row_to_tuple;

namespace {

constexpr std::string_view secret = "s3cr3t-VALUE-4711";

// One decoded column: nothing for NULL, the text otherwise.
using column = std::optional<std::string>;

// Converts @p line and reads the TupleData back with the decoder's own parser.
auto convert(std::string_view line, std::size_t columns) -> std::vector<column> {
  std::vector<std::byte> out;
  const auto ec = copy_text_row_to_tuple(line, columns, out);
  BOOST_TEST_REQUIRE(!ec);
  const auto tuple = replicant::parse_tuple_data(out);
  BOOST_TEST_REQUIRE(tuple.has_value());
  BOOST_TEST_REQUIRE(tuple->size() == columns);
  std::vector<column> got;
  for (const replicant::tuple_column c : *tuple) {
    if (c.is_null()) {
      got.emplace_back(std::nullopt);
    } else {
      BOOST_TEST_REQUIRE((c.kind == replicant::column_kind::text));
      got.emplace_back(std::string{c.text()});
    }
  }
  return got;
}

auto one(std::string_view line) -> column {
  const auto got = convert(line, 1);
  return got.front();
}

// Expects @p line to be refused for @p columns columns: decode_failure, the buffer unchanged.
auto refused(std::string_view line, std::size_t columns = 1) -> bool {
  std::vector<std::byte> out{std::byte{0x42}, std::byte{0x43}};
  const auto ec = copy_text_row_to_tuple(line, columns, out);
  const bool unchanged = out.size() == 2 && out[0] == std::byte{0x42} && out[1] == std::byte{0x43};
  return ec == errc::decode_failure && unchanged;
}

// What the server writes for one text value (copyto.c, CopyAttributeOutText, tab delimiter).
auto server_escape(std::string_view value) -> std::string {
  std::string out;
  for (const char c : value) {
    switch (c) {
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\v': out += "\\v"; break;
      case '\\': out += "\\\\"; break;
      default: out += c; break;
    }
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(copy_text)

BOOST_AUTO_TEST_CASE(splits_fields_and_keeps_plain_text) {
  const auto got = convert("1\thello\t2024-01-02 03:04:05+00\t{a,b}\n", 4);
  BOOST_TEST(*got[0] == "1");
  BOOST_TEST(*got[1] == "hello");
  BOOST_TEST(*got[2] == "2024-01-02 03:04:05+00");
  BOOST_TEST(*got[3] == "{a,b}");
}

BOOST_AUTO_TEST_CASE(decodes_every_escape_the_server_writes) {
  BOOST_TEST(*one("a\\\\b\n") == "a\\b");
  BOOST_TEST(*one("\\b\n") == "\b");
  BOOST_TEST(*one("\\f\n") == "\f");
  BOOST_TEST(*one("\\n\n") == "\n");
  BOOST_TEST(*one("\\r\n") == "\r");
  BOOST_TEST(*one("\\t\n") == "\t");
  BOOST_TEST(*one("\\v\n") == "\v");
  BOOST_TEST(*one("x\\ty\\nz\\\\\n") == "x\ty\nz\\");
  // Backslashes next to each other and at either end of a field.
  BOOST_TEST(*one("\\\\\\\\\n") == "\\\\");
  BOOST_TEST(*one("\\\\N\n") == "\\N");  // the text `\N`, not NULL
}

BOOST_AUTO_TEST_CASE(decodes_octal_and_hex_escapes) {
  BOOST_TEST(*one("\\101\n") == "A");
  BOOST_TEST(*one("\\1\n") == "\x01");
  BOOST_TEST(*one("\\12x\n") == "\nx");
  BOOST_TEST(*one("\\1018\n") == "A8");  // at most three octal digits
  BOOST_TEST(*one("\\377\n") == "\xFF");
  BOOST_TEST(*one("\\x41\n") == "A");
  BOOST_TEST(*one("\\x4\n") == "\x04");
  BOOST_TEST(*one("\\x4g\n") == "\x04g");
  BOOST_TEST(*one("\\x41F\n") == "AF");  // at most two hex digits
  BOOST_TEST(*one("\\xfF\n") == "\xFF");
}

BOOST_AUTO_TEST_CASE(null_and_empty_string_differ) {
  const auto got = convert("\\N\t\t\\N\t\n", 4);
  BOOST_TEST(!got[0].has_value());
  BOOST_TEST(got[1].has_value());
  BOOST_TEST(got[1]->empty());
  BOOST_TEST(!got[2].has_value());
  BOOST_TEST(got[3].has_value());
  BOOST_TEST(got[3]->empty());
  BOOST_TEST(!one("\\N\n").has_value());
  BOOST_TEST(one("\n")->empty());
}

BOOST_AUTO_TEST_CASE(escaped_tabs_and_newlines_do_not_split) {
  const auto got = convert("a\\tb\tc\\nd\n", 2);
  BOOST_TEST(*got[0] == "a\tb");
  BOOST_TEST(*got[1] == "c\nd");
}

BOOST_AUTO_TEST_CASE(raw_bytes_pass_through) {
  // Other control characters are sent raw, and so is UTF-8.
  BOOST_TEST(*one("\x01\x1F\x7F\n") == "\x01\x1F\x7F");
  BOOST_TEST(*one("gr\xC3\xBC\xC3\x9F \xF0\x9F\x90\x98\n") == "gr\xC3\xBC\xC3\x9F \xF0\x9F\x90\x98");
}

BOOST_AUTO_TEST_CASE(a_table_without_columns_sends_empty_lines) {
  std::vector<std::byte> out;
  BOOST_TEST(!copy_text_row_to_tuple("\n", 0, out));
  const auto tuple = replicant::parse_tuple_data(out);
  BOOST_TEST_REQUIRE(tuple.has_value());
  BOOST_TEST(tuple->empty());
  BOOST_TEST(refused("x\n", 0));
}

BOOST_AUTO_TEST_CASE(rows_append_back_to_back) {
  std::vector<std::byte> arena;
  std::vector<std::size_t> ends;
  for (const std::string_view line : {"1\ta\n", "2\t\\N\n", "3\t\\\\\n"}) {
    BOOST_TEST_REQUIRE(!copy_text_row_to_tuple(line, 2, arena));
    ends.push_back(arena.size());
  }
  std::size_t begin = 0;
  std::vector<std::string> firsts;
  for (const std::size_t end : ends) {
    const auto tuple = replicant::parse_tuple_data(std::span<const std::byte>{arena.data() + begin, end - begin});
    BOOST_TEST_REQUIRE(tuple.has_value());
    firsts.emplace_back((*tuple->begin()).text());
    begin = end;
  }
  BOOST_TEST((firsts == std::vector<std::string>{"1", "2", "3"}));
}

BOOST_AUTO_TEST_CASE(refuses_what_a_server_would_not_send) {
  BOOST_TEST(refused("abc\\\n"));  // lone trailing backslash
  BOOST_TEST(refused("a\\qb\n"));  // unknown escape
  BOOST_TEST(refused("a\\Nb\n"));  // \N inside a field
  BOOST_TEST(refused("\\.\n"));    // end-of-data marker
  BOOST_TEST(refused("\\x\n"));    // hex escape without digits
  BOOST_TEST(refused("\\xZ1\n"));
  BOOST_TEST(refused("\\0\n"));  // escapes that give NUL
  BOOST_TEST(refused("\\000\n"));
  BOOST_TEST(refused("\\x00\n"));
  BOOST_TEST(refused("\\400\n"));  // more than a byte
  BOOST_TEST(refused("\\777\n"));
  BOOST_TEST(refused("a\rb\n"));                       // raw carriage return
  BOOST_TEST(refused("a\nb\n"));                       // raw newline inside the row
  BOOST_TEST(refused(std::string_view{"a\0b\n", 4}));  // raw NUL
  BOOST_TEST(refused("abc"));                          // no terminating newline
  BOOST_TEST(refused(""));
  BOOST_TEST(refused("a\tb\n", 1));  // too many fields
  BOOST_TEST(refused("a\tb\n", 3));  // too few
  BOOST_TEST(refused("\n", 2));
  BOOST_TEST(refused("a\n", 0x10000));  // more columns than a TupleData can count
}

BOOST_AUTO_TEST_CASE(errors_never_carry_the_row) {
  std::vector<std::byte> out;
  const auto ec = copy_text_row_to_tuple(std::string{secret} + "\\q\n", 1, out);
  BOOST_TEST_REQUIRE(static_cast<bool>(ec));
  BOOST_TEST(ec == errc::decode_failure);
  BOOST_TEST(ec.message().find(secret) == std::string::npos);
  BOOST_TEST(out.empty());
}

BOOST_AUTO_TEST_CASE(round_trips_whatever_the_server_escapes) {
  // Random values over every byte but NUL, escaped as the server escapes them, come back unchanged.
  std::mt19937 random{4711};
  std::uniform_int_distribution<int> byte{1, 255};
  std::uniform_int_distribution<int> length{0, 40};
  std::uniform_int_distribution<int> special{0, 3};
  const std::string_view favourites = "\\\t\n\r\b\f\vN.x0";
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::string> values(3);
    std::string line;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const int n = length(random);
      for (int k = 0; k < n; ++k) {
        // Favour the bytes that take part in escapes.
        values[i] += special(random) == 0 ? favourites[static_cast<std::size_t>(byte(random)) % favourites.size()]
                                          : static_cast<char>(byte(random));
      }
      if (i != 0) line += '\t';
      line += server_escape(values[i]);
    }
    line += '\n';
    const auto got = convert(line, values.size());
    for (std::size_t i = 0; i < values.size(); ++i) BOOST_TEST(*got[i] == values[i]);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // snapshot_copy_text_tests
