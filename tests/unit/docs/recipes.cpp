// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The recipes of the documentation are programs of the build (examples/recipes), compiled there and
// run against a live server by tests/integration/examples/recipes.cpp. Their `//[name` ... `//]`
// snippets must be quoted verbatim by the pages that teach them, so that a recipe on a page is
// always code that compiles and was run.
#include <boost/test/unit_test.hpp>

#include "unit/docs/support.hpp"

#include <string>
#include <string_view>

BOOST_AUTO_TEST_SUITE(docs_recipes_tests)

namespace {

// Requires every snippet of the recipe file @p source (under examples/recipes/) in the page @p doc.
auto require_recipe(std::string_view source, std::string_view doc) -> void {
  BOOST_TEST_CONTEXT(source) {
    docs_support::require_quoted(docs_support::read_repository_file("examples/recipes/" + std::string{source}), doc);
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(docs_recipes)

BOOST_AUTO_TEST_CASE(the_sql_sink_recipe_is_quoted_by_the_sink_owned_page) {
  require_recipe("sql.hpp", "docs/checkpoint/sink_owned.md");
  require_recipe("sql_sink.cpp", "docs/checkpoint/sink_owned.md");
}

BOOST_AUTO_TEST_CASE(the_lib_owned_recipe_is_quoted_by_the_lib_owned_page) {
  require_recipe("lib_owned_sink.cpp", "docs/checkpoint/lib_owned.md");
}

BOOST_AUTO_TEST_CASE(the_replica_identity_full_recipe_is_quoted_by_its_page) {
  require_recipe("replica_identity_full.cpp", "docs/replica_identity_full.md");
}

BOOST_AUTO_TEST_CASE(the_broker_sink_recipe_is_quoted_by_the_deferred_page) {
  require_recipe("broker_sink.cpp", "docs/checkpoint/deferred.md");
}

// Each policy page opens with the construction of a pipeline; it is the recipe's, which compiles
// and runs (the decoder's options right after the sink, the policy's settings after them).
BOOST_AUTO_TEST_CASE(each_policy_page_opens_with_its_recipes_construction) {
  struct opening {
    std::string_view doc;
    std::string_view source;
    std::string_view snippet;
  };
  for (const auto& [doc, source, snippet] :
       {opening{"docs/checkpoint/sink_owned.md", "sql_sink.cpp", "recipe_sql_pipeline"},
        opening{"docs/checkpoint/lib_owned.md", "lib_owned_sink.cpp", "recipe_lib_owned_postgres_store"},
        opening{"docs/checkpoint/deferred.md", "broker_sink.cpp", "recipe_broker_pipeline"}}) {
    const auto blocks = docs_support::cpp_blocks(docs_support::read_repository_file(doc));
    BOOST_TEST_REQUIRE(!blocks.empty(), doc);
    bool found = false;
    for (const auto& [name, text] :
         docs_support::snippets(docs_support::read_repository_file("examples/recipes/" + std::string{source}))) {
      if (name == snippet) found = blocks.front() == text;
    }
    BOOST_TEST(found, doc << " opens with the snippet " << snippet << " of " << source);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // docs_recipes_tests
