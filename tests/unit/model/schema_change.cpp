// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#include <replicant/model/schema_change.hpp>

#include <boost/test/unit_test.hpp>

#include "support/common/unprintable.hpp"

#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(model_schema_change_tests)

using replicant::column_change;
using replicant::column_change_kind;
using replicant::column_info;
using replicant::relation_info;
using replicant::replica_identity;
using replicant::schema_change_kind;

namespace {

constexpr std::uint32_t int2 = 21;
constexpr std::uint32_t int4 = 23;
constexpr std::uint32_t int8 = 20;
constexpr std::uint32_t text = 25;
constexpr std::uint32_t varchar = 1043;

auto orders() -> relation_info {
  return relation_info{
      .oid = 16384,
      .schema = "public",
      .table = "orders",
      .identity = replica_identity::default_key,
      .columns = {{"id", int4, -1, true}, {"customer", text, -1, false}, {"note", varchar, 14, false}},
  };
}

auto kinds(const replicant::schema_change& c) -> std::vector<column_change_kind> {
  std::vector<column_change_kind> out;
  for (const auto& ch : c.changes) out.push_back(ch.kind);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(schema_change)

BOOST_AUTO_TEST_CASE(identical_resend_is_none) {
  const auto c = replicant::classify_schema_change(orders(), orders());
  BOOST_TEST(c.kind == schema_change_kind::none);
  BOOST_TEST(c.changes.empty());
  BOOST_TEST(c.relation_oid == 16384U);
  BOOST_TEST(c.schema == "public");
  BOOST_TEST(c.table == "orders");
}

BOOST_AUTO_TEST_CASE(appended_column_is_additive) {
  auto after = orders();
  after.columns.push_back({"shipped_at", 1184, -1, false});
  const auto c = replicant::classify_schema_change(orders(), after);
  BOOST_TEST(c.kind == schema_change_kind::additive);
  BOOST_TEST_REQUIRE(c.changes.size() == 1U);
  BOOST_TEST(c.changes[0] == (column_change{column_change_kind::added, "shipped_at"}));
}

BOOST_AUTO_TEST_CASE(column_added_in_the_middle_is_additive) {
  // A publication column list can widen to include a column that sits between others.
  auto after = orders();
  after.columns.insert(after.columns.begin() + 1, column_info{"region", text, -1, false});
  after.columns.push_back({"z", int8, -1, false});
  const auto c = replicant::classify_schema_change(orders(), after);
  BOOST_TEST(c.kind == schema_change_kind::additive);
  BOOST_TEST((kinds(c) == std::vector{column_change_kind::added, column_change_kind::added}));
  BOOST_TEST(c.changes[0].column == "region");
  BOOST_TEST(c.changes[1].column == "z");
}

BOOST_AUTO_TEST_CASE(reordering_alone_is_none) {
  auto after = orders();
  std::swap(after.columns[1], after.columns[2]);
  BOOST_TEST(replicant::classify_schema_change(orders(), after).kind == schema_change_kind::none);
}

BOOST_AUTO_TEST_CASE(dropped_column_is_destructive) {
  auto after = orders();
  after.columns.erase(after.columns.begin() + 1);
  const auto c = replicant::classify_schema_change(orders(), after);
  BOOST_TEST(c.kind == schema_change_kind::destructive);
  BOOST_TEST_REQUIRE(c.changes.size() == 1U);
  BOOST_TEST(c.changes[0] == (column_change{column_change_kind::dropped, "customer"}));
}

BOOST_AUTO_TEST_CASE(type_change_is_destructive) {
  auto after = orders();
  after.columns[0].type_oid = text;  // int4 -> text: the values read differently from now on
  const auto c = replicant::classify_schema_change(orders(), after);
  BOOST_TEST(c.kind == schema_change_kind::destructive);
  BOOST_TEST_REQUIRE(c.changes.size() == 1U);
  BOOST_TEST(c.changes[0] == (column_change{column_change_kind::type_changed, "id"}));
}

BOOST_AUTO_TEST_CASE(narrowing_is_destructive) {
  auto shorter = orders();
  shorter.columns[2].type_modifier = 9;  // varchar(10) -> varchar(5)
  const auto c = replicant::classify_schema_change(orders(), shorter);
  BOOST_TEST(c.kind == schema_change_kind::destructive);
  BOOST_TEST_REQUIRE(c.changes.size() == 1U);
  BOOST_TEST(c.changes[0] == (column_change{column_change_kind::type_modifier_changed, "note"}));

  auto wide = orders();
  wide.columns[0].type_oid = int8;
  auto narrow = wide;
  narrow.columns[0].type_oid = int2;  // int8 -> int2
  const auto n = replicant::classify_schema_change(wide, narrow);
  BOOST_TEST(n.kind == schema_change_kind::destructive);
  BOOST_TEST((kinds(n) == std::vector{column_change_kind::type_changed}));
}

BOOST_AUTO_TEST_CASE(widening_is_additive_and_named) {
  auto after = orders();
  after.columns[0].type_oid = int8;     // int4 -> int8, a key column: its key membership is unchanged
  after.columns[2].type_modifier = 24;  // varchar(10) -> varchar(20)
  const auto c = replicant::classify_schema_change(orders(), after);
  BOOST_TEST(c.kind == schema_change_kind::additive);
  const std::vector<column_change> expected{{column_change_kind::type_widened, "id"},
                                            {column_change_kind::type_widened, "note"}};
  BOOST_TEST(c.changes == expected, boost::test_tools::per_element());
  BOOST_TEST(replicant::widens_a_type(c));
}

BOOST_AUTO_TEST_CASE(a_widening_beside_a_destructive_change_is_destructive) {
  auto after = orders();
  after.columns[0].type_oid = int8;
  after.columns.erase(after.columns.begin() + 1);
  const auto c = replicant::classify_schema_change(orders(), after);
  BOOST_TEST(c.kind == schema_change_kind::destructive);
  BOOST_TEST((kinds(c) == std::vector{column_change_kind::type_widened, column_change_kind::dropped}));
}

BOOST_AUTO_TEST_CASE(added_columns_alone_widen_no_type) {
  auto after = orders();
  after.columns.push_back({"z", int8, -1, false});
  BOOST_TEST(!replicant::widens_a_type(replicant::classify_schema_change(orders(), after)));
}

BOOST_AUTO_TEST_CASE(key_change_is_destructive) {
  auto after = orders();
  after.columns[0].key = false;
  after.columns[1].key = true;
  const auto c = replicant::classify_schema_change(orders(), after);
  BOOST_TEST(c.kind == schema_change_kind::destructive);
  BOOST_TEST((kinds(c) == std::vector{column_change_kind::key_changed, column_change_kind::key_changed}));
  BOOST_TEST(c.changes[0].column == "id");
  BOOST_TEST(c.changes[1].column == "customer");
}

BOOST_AUTO_TEST_CASE(replica_identity_change_is_destructive) {
  // DEFAULT -> FULL also flags every column as key: both show up.
  auto after = orders();
  after.identity = replica_identity::full;
  for (auto& col : after.columns) col.key = true;
  const auto c = replicant::classify_schema_change(orders(), after);
  BOOST_TEST(c.kind == schema_change_kind::destructive);
  BOOST_TEST((kinds(c) == std::vector{column_change_kind::replica_identity_changed, column_change_kind::key_changed,
                                      column_change_kind::key_changed}));
  BOOST_TEST(c.changes[0].column.empty());
  BOOST_TEST(c.changes[1].column == "customer");
  BOOST_TEST(c.changes[2].column == "note");
}

BOOST_AUTO_TEST_CASE(rename_of_a_column_is_drop_plus_add) {
  auto after = orders();
  after.columns[1].name = "client";
  const auto c = replicant::classify_schema_change(orders(), after);
  BOOST_TEST(c.kind == schema_change_kind::destructive);
  BOOST_TEST((kinds(c) == std::vector{column_change_kind::dropped, column_change_kind::added}));
  BOOST_TEST(c.changes[0].column == "customer");
  BOOST_TEST(c.changes[1].column == "client");
}

BOOST_AUTO_TEST_CASE(rename_of_the_table_or_schema_is_destructive) {
  for (const bool schema : {false, true}) {
    auto after = orders();
    (schema ? after.schema : after.table) = "renamed";
    const auto c = replicant::classify_schema_change(orders(), after);
    BOOST_TEST(c.kind == schema_change_kind::destructive);
    BOOST_TEST_REQUIRE(c.changes.size() == 1U);
    BOOST_TEST(c.changes[0] == (column_change{column_change_kind::relation_renamed, ""}));
    BOOST_TEST((schema ? c.schema : c.table) == "renamed");  // reported under the new name
  }
}

BOOST_AUTO_TEST_CASE(lists_every_difference_in_a_stable_order) {
  auto after = orders();
  after.identity = replica_identity::index;
  after.columns = {{"note", int4, -1, false}, {"id", int4, -1, true}, {"added", int4, -1, false}};
  const auto c = replicant::classify_schema_change(orders(), after);
  BOOST_TEST(c.kind == schema_change_kind::destructive);
  const std::vector<column_change> expected{
      {column_change_kind::replica_identity_changed, ""},
      {column_change_kind::dropped, "customer"},
      {column_change_kind::type_changed, "note"},
      {column_change_kind::type_modifier_changed, "note"},
      {column_change_kind::added, "added"},
  };
  BOOST_TEST(c.changes == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(empty_to_columns_and_back) {
  relation_info empty = orders();
  empty.columns.clear();
  BOOST_TEST(replicant::classify_schema_change(empty, orders()).kind == schema_change_kind::additive);
  BOOST_TEST(replicant::classify_schema_change(orders(), empty).kind == schema_change_kind::destructive);
  BOOST_TEST(replicant::classify_schema_change(empty, empty).kind == schema_change_kind::none);
}

BOOST_AUTO_TEST_CASE(names_are_stable) {
  BOOST_TEST(replicant::to_string(schema_change_kind::none) == "none");
  BOOST_TEST(replicant::to_string(schema_change_kind::additive) == "additive");
  BOOST_TEST(replicant::to_string(schema_change_kind::destructive) == "destructive");
  BOOST_TEST(replicant::is_additive(column_change_kind::added));
  BOOST_TEST(replicant::is_additive(column_change_kind::type_widened));
  BOOST_TEST(!replicant::is_additive(column_change_kind::type_modifier_changed));
  BOOST_TEST(replicant::to_string(column_change_kind::added) == "added");
  BOOST_TEST(replicant::to_string(column_change_kind::dropped) == "dropped");
  BOOST_TEST(replicant::to_string(column_change_kind::type_changed) == "type_changed");
  BOOST_TEST(replicant::to_string(column_change_kind::type_modifier_changed) == "type_modifier_changed");
  BOOST_TEST(replicant::to_string(column_change_kind::type_widened) == "type_widened");
  BOOST_TEST(replicant::to_string(column_change_kind::key_changed) == "key_changed");
  BOOST_TEST(replicant::to_string(column_change_kind::replica_identity_changed) == "replica_identity_changed");
  BOOST_TEST(replicant::to_string(column_change_kind::relation_renamed) == "relation_renamed");
  BOOST_TEST(replicant::to_string(replica_identity::default_key) == "default");
  BOOST_TEST(replicant::to_string(replica_identity::full) == "full");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // model_schema_change_tests
