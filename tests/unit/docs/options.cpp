// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The options tables cannot fall behind the code: every member of `pipeline_options` and of
// `pgoutput_options` (read from their headers, so a new member is caught) has its row in
// docs/pipeline.md and docs/decoders.md, with the default the code has; the capability table says
// what each decoder's `capabilities` say.
#include <replicant/pipeline/options.hpp>

#include <boost/test/unit_test.hpp>

#include <replicant/decoder/pglogical.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/decoder/wal2json.hpp>

#include "unit/docs/support.hpp"

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

BOOST_AUTO_TEST_SUITE(docs_options_tests)

namespace {

// The members declared in the body of `struct <name> {` ... `};` of a header: the last word before
// `=`, `{` or `;` of each declaration line that starts with @p prefix (comments and functions
// skipped).
auto members_of(std::string_view header, std::string_view name, std::string_view prefix = {})
    -> std::vector<std::string> {
  std::vector<std::string> out;
  const std::string open = std::string{name} + " {\n";
  auto at = header.find(open);
  BOOST_TEST_REQUIRE(at != std::string_view::npos, "no " << name << " in the header");
  at += open.size();
  const auto end = header.find("\n};", at);
  BOOST_TEST_REQUIRE(end != std::string_view::npos);
  const auto body = header.substr(at, end - at);
  std::size_t pos = 0;
  while (pos < body.size()) {
    auto eol = body.find('\n', pos);
    if (eol == std::string_view::npos) eol = body.size();
    auto line = body.substr(pos, eol - pos);
    pos = eol + 1;
    const auto first = line.find_first_not_of(' ');
    if (first == std::string_view::npos) continue;
    line = line.substr(first);
    if (line.rfind("//", 0) == 0 || line.rfind(prefix, 0) != 0 || line.back() != ';') continue;
    auto decl = line.substr(0, line.find_first_of("={;"));
    if (decl.find('(') != std::string_view::npos || decl.rfind("return ", 0) == 0) continue;
    while (!decl.empty() && decl.back() == ' ') decl.remove_suffix(1);
    const auto word = decl.find_last_of(" &*>");
    out.emplace_back(decl.substr(word == std::string_view::npos ? 0 : word + 1));
  }
  return out;
}

auto code(std::string_view text) -> std::string { return "`" + std::string{text} + "`"; }
auto flag(bool on) -> std::string { return code(on ? "true" : "false"); }
auto count(std::size_t n) -> std::string { return std::to_string(n); }
auto span(std::chrono::milliseconds d) -> std::string {
  if (d.count() == 0) return "0 (off)";
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + " s";
  return std::to_string(d.count()) + " ms";
}
auto micros(std::chrono::microseconds d) -> std::string {
  if (d.count() % 1000 == 0) return span(std::chrono::duration_cast<std::chrono::milliseconds>(d));
  return std::to_string(d.count()) + " µs";
}
auto bytes(std::size_t n) -> std::string {
  if (n == 0) return "0 (off)";
  if (n % (1024U * 1024U) == 0) return std::to_string(n / (1024U * 1024U)) + " MiB";
  return std::to_string(n);
}

// The default-column text each member's code default reads as. A member missing here fails the
// test, so that a new option gets its documented default checked too.
auto documented_defaults() -> std::map<std::string, std::string> {
  const replicant::pipeline_options o;
  BOOST_TEST_REQUIRE(o.conninfo.empty());
  BOOST_TEST_REQUIRE(o.slot.empty());
  BOOST_TEST_REQUIRE(std::holds_alternative<replicant::start::resume_only>(o.start));
  BOOST_TEST_REQUIRE(!o.end_lsn.has_value());
  return {
      {"conninfo", "—"},
      {"slot", "—"},
      {"start", code("start::resume_only")},
      {"create_slot", flag(o.create_slot)},
      {"failover", flag(o.failover)},
      {"max_concurrent_txns", count(o.max_concurrent_txns)},
      {"max_inflight_bytes", bytes(o.max_inflight_bytes)},
      {"max_inflight_lag", bytes(o.max_inflight_lag)},
      {"max_wal_lag", bytes(o.max_wal_lag)},
      {"max_side_check_failures", count(o.max_side_check_failures)},
      {"receive_low_water_bytes", bytes(o.receive_low_water_bytes)},
      {"receive_max_delay", span(o.receive_max_delay)},
      {"receive_gather_delay", micros(o.receive_gather_delay)},
      {"publication_check_interval", span(o.publication_check_interval)},
      {"heartbeat_interval", span(o.heartbeat_interval)},
      {"heartbeat_statement", code(o.heartbeat_statement)},
      {"receive_timeout", span(o.receive_timeout)},
      {"status_interval", span(o.status_interval)},
      {"acknowledge_delay", span(o.acknowledge_delay)},
      {"max_command_retries", count(o.max_command_retries)},
      {"reconnect_delay", span(o.reconnect_delay)},
      {"max_reconnect_delay", span(o.max_reconnect_delay)},
      {"connect_timeout", span(o.connect_timeout)},
      {"end_lsn", "none"},
  };
}

// The same for pgoutput's options.
auto documented_pgoutput_defaults() -> std::map<std::string, std::string> {
  const replicant::pgoutput_options o;
  BOOST_TEST_REQUIRE(o.publications.empty());
  BOOST_TEST_REQUIRE(!o.origin.has_value());
  return {
      {"publications", "—"},
      {"protocol_version", code(std::to_string(o.protocol_version)) + " (highest)"},
      {"binary", flag(o.binary)},
      {"streaming", flag(o.streaming)},
      {"two_phase", flag(o.two_phase)},
      {"messages", flag(o.messages)},
      {"origin", "none (server default: any)"},
  };
}

// Splits "a / b" (a row documenting two members at once) into its parts.
auto parts(const std::string& cell) -> std::vector<std::string> {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (true) {
    const auto sep = cell.find(" / ", at);
    out.push_back(cell.substr(at, sep == std::string::npos ? std::string::npos : sep - at));
    if (sep == std::string::npos) return out;
    at = sep + 3;
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(docs_options)

// Each member of `struct <name>` in @p header has one row in @p table, with @p defaults' text.
auto check_rows(std::string_view header, std::string_view name, std::string_view table,
                const std::map<std::string, std::string>& defaults, std::size_t expected_members) -> void {
  BOOST_TEST_REQUIRE(!table.empty());
  const auto members = members_of(header, name);
  BOOST_TEST(members.size() == expected_members, name << " has " << members.size() << " members");
  for (const auto& m : members) {
    BOOST_TEST_CONTEXT(m) {
      const auto expected = defaults.find(m);
      BOOST_TEST_REQUIRE(defaults.contains(m), "a new option: add its documented default to this test");
      const auto rows = docs_support::rows_naming(table, m);
      BOOST_TEST_REQUIRE(rows.size() == 1U, "one row in the options table");
      BOOST_TEST_REQUIRE(rows[0].size() == 3U);
      const auto names = parts(rows[0][0]);
      const auto values = parts(rows[0][1]);
      BOOST_TEST_REQUIRE(names.size() == values.size());
      for (std::size_t i = 0; i < names.size(); ++i) {
        if (names[i] == code(m)) BOOST_TEST(values[i] == expected->second);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(every_pipeline_option_has_its_row_with_the_default_of_the_code) {
  const auto header = docs_support::read_repository_file("include/replicant/pipeline/options.hpp");
  const auto page = docs_support::read_repository_file("docs/pipeline.md");
  check_rows(header, "struct pipeline_options",
             docs_support::section(page, "## Options (`replicant::pipeline_options`)"), documented_defaults(), 24U);
}

BOOST_AUTO_TEST_CASE(every_pgoutput_option_has_its_row_with_the_default_of_the_code) {
  const auto header = docs_support::read_repository_file("include/replicant/decoder/pgoutput.hpp");
  const auto page = docs_support::read_repository_file("docs/decoders.md");
  check_rows(header, "struct pgoutput_options",
             docs_support::section(page, "### pgoutput's options (`replicant::pgoutput_options`)"),
             documented_pgoutput_defaults(), 7U);
}

BOOST_AUTO_TEST_CASE(the_capability_table_says_what_each_decoder_declares) {
  const auto page = docs_support::read_repository_file("docs/decoders.md");
  const auto choosing = docs_support::section(page, "## Choosing a decoder");
  using caps = replicant::decoder_capabilities;
  const std::map<std::string, std::function<bool(const caps&)>> capability{
      {"messages", [](const caps& c) { return c.messages; }},
      {"streaming", [](const caps& c) { return c.streaming; }},
      {"two_phase", [](const caps& c) { return c.two_phase; }},
      {"origin_filter", [](const caps& c) { return c.origin_filter; }},
      {"failover", [](const caps& c) { return c.failover; }},
      {"binary", [](const caps& c) { return c.binary && c.protocol_version; }},
      {"snapshot", [](const caps& c) { return c.snapshot; }},
      {"catalog", [](const caps& c) { return c.catalog; }},
  };
  const caps decoders[] = {replicant::pgoutput_decoder::capabilities, replicant::wal2json_decoder::capabilities,
                           replicant::pglogical_decoder::capabilities};
  for (const auto& [name, has] : capability) {
    BOOST_TEST_CONTEXT(name) {
      const auto rows = docs_support::rows_naming(choosing, name);
      BOOST_TEST_REQUIRE(rows.size() == 1U);
      BOOST_TEST_REQUIRE(rows[0].size() == 4U);
      for (std::size_t i = 0; i < 3; ++i) {
        BOOST_TEST((rows[0][i + 1].rfind("yes", 0) == 0) == has(decoders[i]), "column " << i + 1);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // docs_options_tests
