// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Every halt is provoked on purpose. The walk goes over the whole halt_reason list and requires,
// for each reason, a live test that names it (tests/integration/, which runs against real servers
// of every supported major), or, for a rejection made before anything connects, a unit test. The
// few reasons nothing can provoke are listed here and in docs/halts.md, and a live test for one of
// them fails the walk too, so that the list shrinks with the suite. Running the tests proves the
// halts; this proves that none is left without a test. (The live tests' own support checks that
// each halt they reach is reported in telemetry: support/live_pipeline.hpp.)
#include <replicant/core/halt.hpp>

#include <boost/test/unit_test.hpp>

#include "unit/docs_support.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <vector>

BOOST_AUTO_TEST_SUITE(halt_coverage_tests)

namespace {

using replicant::halt_reason;

// Reasons no test can provoke, each with the reason why in docs/halts.md.
const std::set<halt_reason> not_provoked = {
    halt_reason::invalid_sink,             // never produced: a sink that cannot serve does not compile
    halt_reason::batch_unsupported,        // never produced: batching is a checkpoint policy
    halt_reason::invalid_start_lsn,        // never produced: the options have no start position
    halt_reason::slot_origin_unavailable,  // only in a race with another creator of the slot
};

// The texts of the C++ sources in @p folder of the repository (recursively).
auto sources_in(std::string_view folder) -> std::vector<std::string> {
  std::vector<std::string> out;
  const auto root = docs_support::repository_root() / folder;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.is_regular_file() && entry.path().extension() == ".cpp") out.push_back(docs_support::read_text(entry));
  }
  BOOST_TEST_REQUIRE(!out.empty(), "no sources in " << folder);
  return out;
}

// Whether some text names `halt_reason::<name>` (the whole name, not a longer one it begins).
auto named_in(const std::vector<std::string>& texts, std::string_view name) -> bool {
  const std::string needle = "halt_reason::" + std::string{name};
  return std::any_of(texts.begin(), texts.end(), [&](const std::string& text) {
    for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
      const auto after = at + needle.size();
      if (after == text.size() || (std::isalnum(static_cast<unsigned char>(text[after])) == 0 && text[after] != '_')) {
        return true;
      }
    }
    return false;
  });
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_reachable_halt_has_a_test_that_provokes_it) {
  const auto live = sources_in("tests/integration");
  const auto unit = sources_in("tests/unit");
  for (const halt_reason reason : replicant::halt_reasons) {
    const auto name = replicant::to_string(reason);
    BOOST_TEST_CONTEXT(name) {
      if (not_provoked.count(reason) == 1U) {
        BOOST_TEST(!named_in(live, name), "a live test provokes it now: take it off the not-provoked list");
        continue;
      }
      const bool tested = named_in(live, name) || (replicant::is_start_rejection(reason) && named_in(unit, name));
      BOOST_TEST(tested, "no test provokes it");
    }
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

BOOST_AUTO_TEST_SUITE_END()  // halt_coverage_tests
