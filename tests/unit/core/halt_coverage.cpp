// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Every halt is provoked on purpose, and proven to be. tests/halts_provoked.txt records, for each
// halt reason, the test cases that provoke it (tests/integration/, which runs against real servers
// of every supported major, or, for a rejection made before anything connects, tests/unit/). The
// walk requires a record for every reason but the few nothing can provoke (listed here and in
// docs/halts.md), and holds each record against its case: the case must exist, and its own body
// must assert the reason and the `connection.disconnected` event that reports it
// (unit/core/halt_records.hpp). A comment or a string that names a reason counts for nothing, and a
// record of an unprovokable reason fails the walk too, so that the list shrinks with the suite.
#include "unit/core/halt_records.hpp"

#include <replicant/core/halt.hpp>

#include <boost/test/unit_test.hpp>

#include "unit/docs/support.hpp"

#include <filesystem>
#include <set>
#include <string>
#include <string_view>

BOOST_AUTO_TEST_SUITE(core_halt_coverage_tests)

namespace {

using replicant::halt_reason;

// Reasons no test can provoke, each with the reason why in docs/halts.md.
const std::set<halt_reason> not_provoked = {
    halt_reason::invalid_sink,       // never produced: a sink that cannot serve does not compile
    halt_reason::batch_unsupported,  // never produced: batching is a checkpoint policy
    halt_reason::invalid_start_lsn,  // never produced: the options have no start position
};

auto records() -> std::vector<halt_records::record> {
  return halt_records::parse(docs_support::read_repository_file("tests/halts_provoked.txt"));
}

// A tiny test source for the checker's own cases.
constexpr std::string_view sample = R"(
BOOST_AUTO_TEST_CASE(asserts_both) {
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST(r.halted() == halt_reason::slot_missing);
  BOOST_TEST(events.disconnected(halt_reason::slot_missing));
}
BOOST_AUTO_TEST_CASE(says_it_in_comments) {
  // BOOST_TEST(r.halted() == halt_reason::slot_missing);
  /* BOOST_TEST(events.disconnected(halt_reason::slot_missing)); */
  BOOST_TEST(r.halted() == halt_reason::slot_missing_not);
}
BOOST_AUTO_TEST_CASE(says_it_in_strings) {
  BOOST_TEST(r.halted() != halt_reason{}, "halt_reason::slot_missing");
  BOOST_TEST(events.contains("replicant.connection.disconnected reason=slot_missing"));
}
BOOST_AUTO_TEST_CASE(provokes_without_asserting) {
  const auto reason = halt_reason::slot_missing;
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  static_cast<void>(events.disconnected(halt_reason::slot_missing));
}
BOOST_AUTO_TEST_CASE(checks_only_the_event) {
  BOOST_TEST(events.disconnected(halt_reason::slot_missing));
}
BOOST_AUTO_TEST_CASE(checks_only_the_halt) {
  BOOST_TEST(r.halted() == halt_reason::slot_missing);
}
BOOST_AUTO_TEST_CASE(is_switched_off, *utf::disabled()) {
  BOOST_TEST(r.halted() == halt_reason::slot_missing);
  BOOST_TEST(events.disconnected(halt_reason::slot_missing));
}
BOOST_AUTO_TEST_CASE(asserts_a_longer_name) {
  BOOST_TEST(r.halted() == halt_reason::slot_missing_too);
  BOOST_TEST(events.disconnected(halt_reason::slot_missing_too));
}
BOOST_AUTO_TEST_CASE(asserts_the_event_text) {
  BOOST_TEST(r.halted() == halt_reason::slot_missing);
  BOOST_TEST(events.count("replicant.connection.disconnected reason=slot_missing") == 1U);
}
)";

}  // namespace

BOOST_AUTO_TEST_CASE(a_record_holds_only_for_a_case_that_asserts_the_halt_and_its_event) {
  const auto ok = [](std::string_view test_case) { return halt_records::problem("slot_missing", sample, test_case); };
  BOOST_TEST(ok("asserts_both").empty());
  BOOST_TEST(ok("asserts_the_event_text").empty());
  BOOST_TEST(!ok("no_such_case").empty());
  BOOST_TEST(!ok("asserts").empty(), "a prefix of a case's name is no case");
  BOOST_TEST(!ok("says_it_in_comments").empty());
  BOOST_TEST(!ok("says_it_in_strings").empty());
  BOOST_TEST(!ok("provokes_without_asserting").empty());
  BOOST_TEST(!ok("checks_only_the_event").empty());
  BOOST_TEST(!ok("checks_only_the_halt").empty());
  BOOST_TEST(!ok("is_switched_off").empty());
  BOOST_TEST(!ok("asserts_a_longer_name").empty());
}

BOOST_AUTO_TEST_CASE(every_reachable_halt_has_a_case_that_provokes_and_asserts_it) {
  std::set<halt_reason> recorded;
  for (const auto& r : records()) {
    BOOST_TEST_CONTEXT("tests/halts_provoked.txt line " << r.line << " (" << r.reason << ")") {
      const auto reason = replicant::parse_halt_reason(r.reason);
      BOOST_TEST_REQUIRE(reason.has_value(), "no such halt reason");
      BOOST_TEST_REQUIRE(!r.test_case.empty(), "a record is: reason, test file, test case");
      recorded.insert(*reason);
      BOOST_TEST(not_provoked.count(*reason) == 0U, "a test provokes it now: take it off the not-provoked list");
      const bool live = r.file.rfind("tests/integration/", 0) == 0;
      const bool unit = r.file.rfind("tests/unit/", 0) == 0;
      BOOST_TEST((live || (unit && replicant::is_start_rejection(*reason))),
                 "only a rejection before anything connects may be proven without a server");
      const auto path = docs_support::repository_root() / r.file;
      BOOST_TEST_REQUIRE(std::filesystem::is_regular_file(path), "no file " << r.file);
      const auto problem = halt_records::problem(r.reason, docs_support::read_text(path), r.test_case);
      BOOST_TEST(problem.empty(), r.file << ": " << problem);
    }
  }
  for (const halt_reason reason : replicant::halt_reasons) {
    if (not_provoked.count(reason) == 1U) continue;
    BOOST_TEST(recorded.count(reason) == 1U, replicant::to_string(reason) << ": no case is recorded to provoke it");
  }
}

BOOST_AUTO_TEST_CASE(the_halts_nothing_provokes_are_documented_as_such) {
  const auto doc = docs_support::read_repository_file("docs/halts.md");
  const auto section = docs_support::section(doc, "## Which halts the pipeline reaches today");
  BOOST_TEST_REQUIRE(!section.empty());
  for (const halt_reason reason : not_provoked) {
    const std::string quoted = "`" + std::string{replicant::to_string(reason)} + "`";
    BOOST_TEST(section.find(quoted) != std::string_view::npos, quoted);
  }
}

BOOST_AUTO_TEST_SUITE_END()  // core_halt_coverage_tests
