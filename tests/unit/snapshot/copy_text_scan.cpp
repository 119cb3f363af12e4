// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The COPY text row reader (replicant/snapshot/detail/copy_text.hpp) skips runs of ordinary bytes a block at
// a time (sixteen bytes with SSE2, then eight, then one by one). These cases put every kind of byte
// it must stop at (and the harmless control bytes that only make it look closer) at every offset of
// fields longer than a few blocks, so that each position within and across the blocks is checked
// against what the server meant.
#include <replicant/snapshot/detail/copy_text.hpp>

#include <boost/test/unit_test.hpp>

#include <replicant/model/relation.hpp>
#include <replicant/model/tuple.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

BOOST_AUTO_TEST_SUITE(snapshot_copy_text_scan_tests)

using replicant::errc;
using replicant::detail::copy_text_row_to_tuple;

namespace {

// The fields of @p line as the reader decodes them (NULL: none), or nothing when it refuses it.
auto fields(std::string_view line, std::size_t columns) -> std::optional<std::vector<std::optional<std::string>>> {
  std::vector<std::byte> out;
  if (copy_text_row_to_tuple(line, columns, out)) return std::nullopt;
  const auto tuple = replicant::parse_tuple_data(out);
  BOOST_TEST_REQUIRE(tuple.has_value());
  std::vector<std::optional<std::string>> got;
  for (const replicant::tuple_column c : *tuple) {
    got.push_back(c.is_null() ? std::nullopt : std::optional<std::string>{std::string{c.text()}});
  }
  return got;
}

// A field of @p length ordinary bytes with @p inserted at @p at.
auto field_with(std::size_t length, std::size_t at, std::string_view inserted) -> std::string {
  std::string f;
  for (std::size_t i = 0; i < length; ++i) f.push_back(static_cast<char>('a' + i % 26));
  f.insert(at, inserted);
  return f;
}

}  // namespace

// Long enough for two 16-byte blocks, an 8-byte one and a tail.
constexpr std::size_t length = 45;

BOOST_AUTO_TEST_SUITE(copy_text_scan)

BOOST_AUTO_TEST_CASE(finds_tabs_and_escapes_at_every_offset) {
  for (std::size_t at = 0; at <= length; ++at) {
    // A tab splits the row wherever it is.
    const auto split = fields(field_with(length, at, "\t") + "\n", 2);
    BOOST_TEST_REQUIRE(split.has_value(), at);
    BOOST_TEST(*(*split)[0] == field_with(length, 0, "").substr(0, at));
    BOOST_TEST(*(*split)[1] == field_with(length, 0, "").substr(at));
    // An escape is decoded wherever it is.
    for (const auto& [escaped, meant] : {std::pair<std::string_view, std::string_view>{"\\\\", "\\"},
                                         {"\\t", "\t"},
                                         {"\\n", "\n"},
                                         {"\\r", "\r"},
                                         {"\\101", "A"}}) {
      const auto got = fields(field_with(length, at, escaped) + "\n", 1);
      BOOST_TEST_REQUIRE(got.has_value(), at);
      BOOST_TEST(*(*got)[0] == field_with(length, at, meant), at);
    }
  }
}

BOOST_AUTO_TEST_CASE(passes_harmless_control_bytes_through_at_every_offset) {
  // Bytes below 0x0E that are not special make a word look interesting; they are still data.
  for (std::size_t at = 0; at <= length; ++at) {
    for (const std::string_view c : {"\x01", "\x08", "\x0b", "\x0c", "\x7f", "\xc3\xbc"}) {
      const auto got = fields(field_with(length, at, c) + "\n", 1);
      BOOST_TEST_REQUIRE(got.has_value(), at);
      BOOST_TEST(*(*got)[0] == field_with(length, at, c), at);
    }
  }
}

BOOST_AUTO_TEST_CASE(refuses_raw_line_breaks_and_nul_at_every_offset) {
  for (std::size_t at = 0; at <= length; ++at) {
    for (const std::string_view c : {std::string_view{"\r"}, std::string_view{"\n"}, std::string_view{"\0", 1}}) {
      std::vector<std::byte> out{std::byte{7}};
      const auto ec = copy_text_row_to_tuple(field_with(length, at, c) + "\n", 1, out);
      BOOST_TEST((ec == errc::decode_failure), at);
      BOOST_TEST(out.size() == 1U, "left as it was");
    }
  }
}

BOOST_AUTO_TEST_CASE(tells_null_from_text_beginning_like_it) {
  const auto got = fields("\\N\t\\\\N\t\\N\n", 3);
  BOOST_TEST_REQUIRE(got.has_value());
  BOOST_TEST(!(*got)[0].has_value());
  BOOST_TEST(*(*got)[1] == "\\N");
  BOOST_TEST(!(*got)[2].has_value());
  BOOST_TEST(!fields("\\Nx\n", 1).has_value(), "`\\N` followed by more is not NULL, and no escape either");
  BOOST_TEST(!fields("a\t\\N\t\n", 2).has_value(), "one field too many");
  BOOST_TEST(!fields("a\n", 2).has_value(), "one field too few");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // snapshot_copy_text_scan_tests
