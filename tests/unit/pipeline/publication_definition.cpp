// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// What counts as a publication sending less than before (the periodic publication check), on
// definitions built by hand: every kind of narrowing is found, additions are not, and a missing
// publication is left to the publication_missing check. The live side (the catalog query, removed
// tables that were dropped or are still published another way) is in
// tests/integration/publication_changes.cpp.
#include <replicant/pipeline/detail/publication_definition.hpp>

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(pipeline_publication_definition_tests)

using replicant::publication_definitions;
using replicant::publication_shape;
using replicant::published_relation;
using replicant::detail::find_narrowings;
using replicant::detail::narrowing_kind;
using replicant::detail::parse_attnums;

namespace {

auto relation(std::string table, std::optional<std::string> filter = std::nullopt,
              std::optional<std::vector<int>> columns = std::nullopt) -> published_relation {
  return published_relation{replicant::table_name{"public", std::move(table)}, std::move(filter), std::move(columns)};
}

// `pub` publishing every operation of t1 (OID 1) and t2 (OID 2), and schema 50.
auto baseline() -> publication_definitions {
  publication_shape p;
  p.insert = p.update = p.delete_ = p.truncate = true;
  p.relations.emplace(1, relation("t1"));
  p.relations.emplace(2, relation("t2", "(id > 0)", std::vector<int>{1, 2, 3}));
  p.schemas.insert(50);
  publication_definitions d;
  d.emplace("pub", std::move(p));
  return d;
}

auto kinds(const publication_definitions& before, const publication_definitions& now) -> std::vector<narrowing_kind> {
  std::vector<narrowing_kind> out;
  for (const auto& n : find_narrowings(before, now)) out.push_back(n.kind);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(publication_narrowing)

BOOST_AUTO_TEST_CASE(the_same_definition_is_no_narrowing) { BOOST_TEST(kinds(baseline(), baseline()).empty()); }

BOOST_AUTO_TEST_CASE(each_kind_of_narrowing_is_found) {
  const auto check = [](const auto& change, narrowing_kind expected) {
    auto now = baseline();
    change(now.at("pub"));
    const auto found = kinds(baseline(), now);
    BOOST_TEST_REQUIRE(found.size() == 1U);
    BOOST_TEST((found.front() == expected));
  };
  check([](publication_shape& p) { p.relations.erase(1); }, narrowing_kind::table_removed);
  check([](publication_shape& p) { p.schemas.clear(); }, narrowing_kind::schema_removed);
  check([](publication_shape& p) { p.relations.at(1).row_filter = "(id > 5)"; }, narrowing_kind::row_filter);
  check([](publication_shape& p) { p.relations.at(2).row_filter = "(id > 5)"; }, narrowing_kind::row_filter);
  check([](publication_shape& p) { p.relations.at(1).columns = std::vector<int>{1, 2}; }, narrowing_kind::column_list);
  check([](publication_shape& p) { p.relations.at(2).columns = std::vector<int>{1, 3}; }, narrowing_kind::column_list);
  check([](publication_shape& p) { p.delete_ = false; }, narrowing_kind::operations);
  check([](publication_shape& p) { p.truncate = false; }, narrowing_kind::operations);
  check([](publication_shape& p) { p.via_root = true; }, narrowing_kind::via_root);
}

BOOST_AUTO_TEST_CASE(a_removed_table_names_itself_and_its_oid) {
  auto now = baseline();
  now.at("pub").relations.erase(2);
  const auto found = find_narrowings(baseline(), now);
  BOOST_TEST_REQUIRE(found.size() == 1U);
  BOOST_TEST(found.front().oid == 2U);
  BOOST_TEST_REQUIRE(found.front().table.has_value());
  BOOST_TEST(found.front().table->name == "t2");
}

BOOST_AUTO_TEST_CASE(additions_are_no_narrowing) {
  auto before = baseline();
  before.at("pub").truncate = false;
  auto now = before;
  auto& p = now.at("pub");
  p.relations.emplace(3, relation("t3"));                    // a table added
  p.schemas.insert(51);                                      // a schema added
  p.truncate = true;                                         // an operation added
  p.relations.at(2).row_filter.reset();                      // a filter removed
  p.relations.at(2).columns = std::vector<int>{1, 2, 3, 4};  // a column added to the list
  BOOST_TEST(kinds(before, now).empty());
  p.relations.at(2).columns.reset();  // the list removed: every column
  BOOST_TEST(kinds(before, now).empty());
}

BOOST_AUTO_TEST_CASE(stored_generated_columns_unpublished_are_a_narrowing) {
  auto before = baseline();
  before.at("pub").generated = 's';
  auto now = before;
  now.at("pub").generated = 'n';
  BOOST_TEST((kinds(before, now) == std::vector<narrowing_kind>{narrowing_kind::generated_columns}));
  BOOST_TEST(kinds(now, before).empty());
}

BOOST_AUTO_TEST_CASE(a_missing_publication_is_left_to_the_missing_check) {
  publication_definitions none;
  BOOST_TEST(kinds(baseline(), none).empty());
}

BOOST_AUTO_TEST_CASE(int2vector_text_parses_to_sorted_attnums) {
  BOOST_TEST((parse_attnums("3 1 2") == std::vector<int>{1, 2, 3}));
  BOOST_TEST((parse_attnums("7") == std::vector<int>{7}));
  BOOST_TEST((parse_attnums("") == std::vector<int>{}));
  BOOST_TEST(!parse_attnums("1 x").has_value());
  BOOST_TEST(!parse_attnums("1  2").has_value());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // pipeline_publication_definition_tests
