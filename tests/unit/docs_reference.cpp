// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The operator's references cannot fall behind the code: every halt reason has its row in
// docs/halts.md (cause and action), and every telemetry event its row in docs/telemetry.md.
#define BOOST_TEST_MODULE replicant.unit.docs_reference
#include <replicant/halt.hpp>
#include <replicant/telemetry.hpp>

#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>
#include <string>

namespace {

auto read_doc(const std::string& name) -> std::string {
  const std::string path = std::string{REPLICANT_TEST_DATA_DIR} + "/../../docs/" + name;
  std::ifstream in{path};
  BOOST_TEST_REQUIRE(in.good(), "cannot read " << path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A table row of the document that begins with the name in backquotes.
auto has_row(const std::string& doc, std::string_view name) -> bool {
  return doc.find("\n| `" + std::string{name} + "` |") != std::string::npos;
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
