// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The README's complete minimal program, compiled piece by piece (its main() lives in a namespace
// here, beside the test runner's), and quoted verbatim by README.md.
//[readme_includes
#include <replicant/pipeline.hpp>

#include <iostream>
#include <optional>
//]

#include <boost/test/unit_test.hpp>

#include "unit/docs/support.hpp"

BOOST_AUTO_TEST_SUITE(docs_readme_tests)

//[readme_sink
struct print_sink {
  std::optional<replicant::lsn> stored;  // a real sink keeps this in its own database

  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return stored; }

  auto handle_transaction(const replicant::transaction& txn) -> replicant::result<replicant::lsn> {
    if (stored && txn.commit_lsn() <= *stored) return txn.commit_lsn();  // already applied
    for (const replicant::change& c : txn.changes()) {
      std::cout << replicant::to_string(c.op()) << ' ' << c.relation().table << '\n';
    }
    stored = txn.commit_lsn();  // store it atomically with the data
    return txn.commit_lsn();
  }
};
//]

// Only the global main() may end without a return statement; this one, never called, is the same
// text in a namespace, so the warning is silenced for it alone.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wreturn-type"
namespace readme {
// The README's own layout.
// clang-format off
//[readme_main
int main() {
  print_sink sink;
  replicant::pgoutput_options pg{.publications = {"shop_pub"}};
  replicant::pipeline_options o{.conninfo = "dbname=shop", .slot = "shop_print",
                                .start = replicant::start::go_forward{}};  // a new slot starts from now on
  replicant::pgoutput_pipeline<print_sink> p{sink, pg, o};
  p.run();  // until p.stop(); throws replicant::error (value-free) if it halts
}
//]
// clang-format on
}  // namespace readme
#pragma GCC diagnostic pop

static_assert(replicant::sink<print_sink>);

BOOST_AUTO_TEST_SUITE(docs_readme)

BOOST_AUTO_TEST_CASE(the_readme_quotes_the_compiled_program) {
  docs_support::require_quoted(docs_support::read_text(__FILE__), "README.md");
  // Nothing else of the program: its pieces, in this order, are the whole block.
  const auto page = docs_support::read_repository_file("README.md");
  const auto pieces = docs_support::snippets(docs_support::read_text(__FILE__));
  BOOST_TEST_REQUIRE(pieces.size() == 3U);
  const auto whole = pieces[0].second + "\n" + pieces[1].second + "\n" + pieces[2].second;
  bool found = false;
  for (const auto& block : docs_support::cpp_blocks(page)) found = found || block == whole;
  BOOST_TEST(found, "README.md's program is exactly the three pieces");
}

BOOST_AUTO_TEST_CASE(the_two_setup_commands_are_the_tools_ci_runs) {
  const auto page = docs_support::read_repository_file("README.md");
  const auto commands = docs_support::section(page, "## Two commands");
  BOOST_TEST(commands.find("| `tools/demo` |") != std::string_view::npos);
  BOOST_TEST(commands.find("| `tools/test` |") != std::string_view::npos);
  // CI runs exactly the README's test command.
  BOOST_TEST(docs_support::read_repository_file(".ci/run").find("\nexec tools/test\n") != std::string::npos);
  const auto root = docs_support::repository_root();
  BOOST_TEST(std::filesystem::exists(root / "tools/demo"));
  BOOST_TEST(std::filesystem::exists(root / "tools/test"));
}

BOOST_AUTO_TEST_CASE(the_readme_sink_refuses_bad_options_before_connecting) {
  print_sink sink;
  replicant::pipeline_options options;
  options.conninfo = "dbname=shop";
  options.slot = "Not A Slot";
  replicant::pgoutput_pipeline<print_sink> p{sink, replicant::pgoutput_options{.publications = {"shop_pub"}}, options};
  std::error_code ec;
  p.run(ec);
  BOOST_TEST(ec == replicant::errc::halted);
  BOOST_TEST_REQUIRE(p.last_halt().has_value());
  BOOST_TEST(p.last_halt()->reason == replicant::halt_reason::invalid_identifier);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // docs_readme_tests
