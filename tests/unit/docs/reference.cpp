// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The operator's references cannot fall behind the code: every halt reason has its row in
// docs/halts.md (cause and action), and every telemetry event its row in docs/telemetry.md.
#include <replicant/core/halt.hpp>
#include <replicant/telemetry/telemetry.hpp>

#include <boost/test/unit_test.hpp>

#include "unit/docs/support.hpp"

#include <boost/hana/for_each.hpp>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

BOOST_AUTO_TEST_SUITE(docs_reference_tests)

namespace {

auto read_doc(std::string_view name) -> std::string {
  return docs_support::read_repository_file("docs/" + std::string{name});
}

// A table row of the document that begins with the name in backquotes.
auto has_row(const std::string& doc, std::string_view name) -> bool {
  return doc.find("\n| `" + std::string{name} + "` |") != std::string::npos;
}

// The `quoted` words of a table cell, sorted.
auto quoted_names(const std::string& cell) -> std::vector<std::string> {
  std::vector<std::string> out;
  for (auto open = cell.find('`'); open != std::string::npos; open = cell.find('`', open + 1)) {
    const auto close = cell.find('`', open + 1);
    if (close == std::string::npos) break;
    out.push_back(cell.substr(open + 1, close - open - 1));
    open = close;
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The names of a Hana tuple of key tags, sorted.
template <class Keys>
auto key_names(Keys keys) -> std::vector<std::string> {
  std::vector<std::string> out;
  boost::hana::for_each(keys, [&](auto key) { out.emplace_back(decltype(key)::type::name); });
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_halt_reason_has_its_row_in_the_halts_reference) {
  const auto doc = read_doc("halts.md");
  for (const auto reason : replicant::halt_reasons) {
    BOOST_TEST(has_row(doc, replicant::to_string(reason)), replicant::to_string(reason));
  }
}

BOOST_AUTO_TEST_CASE(every_telemetry_event_has_its_row_in_the_telemetry_reference) {
  const auto doc = read_doc("telemetry.md");
  for (const auto name : replicant::telemetry::event_names) BOOST_TEST(has_row(doc, name), name);
}

// The measurements and metadata columns name exactly the keys the catalog lets each event carry.
BOOST_AUTO_TEST_CASE(every_telemetry_row_lists_the_keys_of_its_event) {
  const auto doc = read_doc("telemetry.md");
  const auto catalog = docs_support::section(doc, "## The catalog");
  boost::hana::for_each(replicant::telemetry::catalog, [&](auto e) {
    using event = typename decltype(e)::type;
    const auto rows = docs_support::rows_naming(catalog, event::name);
    BOOST_TEST_REQUIRE(rows.size() == 1U, event::name);
    const auto& cells = rows.front();
    BOOST_TEST_REQUIRE(cells.size() >= 4U, event::name);
    BOOST_TEST(quoted_names(cells[2]) == key_names(event::measurements), event::name << ": measurements");
    BOOST_TEST(quoted_names(cells[3]) == key_names(event::metadata), event::name << ": metadata");
  });
}

// The table of the reference's names holds every event, and each of its keys either as a key the
// reference has too or as one of replicant's own.
BOOST_AUTO_TEST_CASE(every_telemetry_event_and_key_is_mapped_to_the_reference) {
  const auto doc = read_doc("telemetry.md");
  const auto mapping = docs_support::section(doc, "## The reference's names");
  BOOST_TEST_REQUIRE(!mapping.empty());
  boost::hana::for_each(replicant::telemetry::catalog, [&](auto e) {
    using event = typename decltype(e)::type;
    const auto rows = docs_support::rows_naming(mapping, event::name);
    BOOST_TEST_REQUIRE(rows.size() == 1U, event::name);
    const auto& cells = rows.front();
    BOOST_TEST_REQUIRE(cells.size() >= 4U, event::name);
    auto mapped = quoted_names(cells[2] + " " + cells[3]);
    auto keys = key_names(event::measurements);
    const auto metadata = key_names(event::metadata);
    keys.insert(keys.end(), metadata.begin(), metadata.end());
    std::sort(keys.begin(), keys.end());
    BOOST_TEST(mapped == keys, event::name);
  });
}

BOOST_AUTO_TEST_SUITE_END()  // docs_reference_tests
