// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-pg-mirror's statements (examples/pg_mirror/statements.hpp) for REPLICA IDENTITY FULL:
// with a primary key, the key's columns address the row, taken from the whole old row; without one,
// a single row equal to the whole old row does. And what is refused, without a value in the error.
// Changes are built from TupleData bytes, as the decoder hands them over; no server. The live
// behaviour is tests/integration/examples/exactly_once.cpp.
#include "../../../examples/pg_mirror/statements.hpp"

#include <boost/test/unit_test.hpp>

#include "support/wire/pgoutput_builder.hpp"

#include <replicant/model/change.hpp>
#include <replicant/model/relation.hpp>
#include <replicant/model/tuple.hpp>

#include <string>
#include <string_view>
#include <vector>

BOOST_AUTO_TEST_SUITE(examples_pg_mirror_statements_tests)

namespace mirror = replicant::examples::pg_mirror;
namespace pg = replicant::test;
using replicant::change;
using replicant::change_op;
using replicant::old_tuple_kind;
using replicant::replica_identity;

namespace {

// Never to appear in an error.
constexpr std::string_view secret = "S3CR3T-statements-4412";

// `public.t (id int, note text, body text)` with @p identity; under FULL the server flags every
// column as key, otherwise only `id`.
auto table(replica_identity identity) -> replicant::relation_info {
  const bool full = identity == replica_identity::full;
  replicant::relation_info r;
  r.oid = 16384;
  r.schema = "public";
  r.table = "t";
  r.identity = identity;
  r.columns = {{"id", 23, -1, true}, {"note", 25, -1, full}, {"body", 25, -1, full}};
  return r;
}

// TupleData bytes that outlive the changes viewing them.
struct tuples {
  std::vector<pg::bytes> kept;

  auto add(const std::vector<pg::col>& cols) -> replicant::tuple_data {
    pg::wire w;
    pg::tuple(w, cols);
    kept.push_back(w.take());
    auto parsed = replicant::parse_tuple_data(kept.back());
    BOOST_REQUIRE(parsed);
    return *parsed;
  }
};

auto param(const mirror::statement& s, std::size_t i) -> std::string {
  const char* v = s.params.pointers().at(i);
  return v == nullptr ? std::string{"<null>"} : std::string{v};
}

auto identity(const replicant::relation_info& r, std::vector<std::string> primary_key, bool replays = false)
    -> mirror::row_identity {
  auto id = mirror::row_identity::of(r, primary_key, replays);
  BOOST_REQUIRE(id);
  return *id;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(pg_mirror_statements)

BOOST_AUTO_TEST_CASE(full_with_a_primary_key_addresses_rows_by_it) {
  const auto r = table(replica_identity::full);
  const auto id = identity(r, {"id"});
  BOOST_TEST(!id.whole_row());
  tuples t;
  const auto old_row = t.add({pg::col::text("1"), pg::col::text("a"), pg::col::text("long body")});

  const change insert{change_op::insert, r, old_row};
  auto up = mirror::upsert(insert, id);
  BOOST_TEST_REQUIRE(up.has_value());
  BOOST_TEST(up->sql == R"(INSERT INTO "public"."t" ("id", "note", "body") VALUES ($1, $2, $3) ON CONFLICT ("id") )"
                        R"(DO UPDATE SET "note" = EXCLUDED."note", "body" = EXCLUDED."body")");

  // The body left alone: the new row has it as unchanged, the old row whole. The key did not move.
  const change touch{change_op::update, r, t.add({pg::col::text("1"), pg::col::text("b"), pg::col::unchanged()}),
                     old_tuple_kind::full, old_row};
  BOOST_TEST(!mirror::moves_key(touch, id));
  auto update = mirror::update_by_key(touch, id, touch.record(), false);
  BOOST_TEST_REQUIRE(update.has_value());
  BOOST_TEST_REQUIRE(update->has_value());
  BOOST_TEST((*update)->sql == R"(UPDATE "public"."t" SET "note" = $1 WHERE "id" = $2)");
  BOOST_TEST(param(**update, 1) == "1");

  // A key change: the old key comes from the whole old row.
  const change move{change_op::update, r, t.add({pg::col::text("2"), pg::col::text("a"), pg::col::unchanged()}),
                    old_tuple_kind::full, old_row};
  BOOST_TEST(mirror::moves_key(move, id));
  auto moved = mirror::update_by_key(move, id, move.old(), true);
  BOOST_TEST_REQUIRE(moved.has_value());
  BOOST_TEST_REQUIRE(moved->has_value());
  BOOST_TEST((*moved)->sql == R"(UPDATE "public"."t" SET "id" = $1, "note" = $2 WHERE "id" = $3)");
  BOOST_TEST(param(**moved, 2) == "1");

  const change remove{change_op::delete_, r, {}, old_tuple_kind::full, old_row};
  auto del = mirror::delete_by_key(remove, id);
  BOOST_TEST_REQUIRE(del.has_value());
  BOOST_TEST(del->sql == R"(DELETE FROM "public"."t" WHERE "id" = $1)");
  BOOST_TEST(del->params.size() == 1U);
}

BOOST_AUTO_TEST_CASE(full_without_a_key_changes_one_row_equal_to_the_old_row) {
  const auto r = table(replica_identity::full);
  const auto id = identity(r, {});
  BOOST_TEST(id.whole_row());
  tuples t;
  const auto old_row = t.add({pg::col::text("1"), pg::col::null(), pg::col::text("long body")});
  const std::string match =
      R"( WHERE (tableoid, ctid) = (SELECT tableoid, ctid FROM "public"."t" WHERE "id" IS NOT DISTINCT FROM $)";

  auto insert = mirror::upsert(change{change_op::insert, r, old_row}, id);
  BOOST_TEST_REQUIRE(insert.has_value());
  BOOST_TEST(insert->sql == R"(INSERT INTO "public"."t" ("id", "note", "body") VALUES ($1, $2, $3))");

  auto del = mirror::delete_by_key(change{change_op::delete_, r, {}, old_tuple_kind::full, old_row}, id);
  BOOST_TEST_REQUIRE(del.has_value());
  BOOST_TEST(del->sql == R"(DELETE FROM "public"."t")" + match +
                             R"(1 AND "note" IS NOT DISTINCT FROM $2 AND "body" IS NOT DISTINCT FROM $3 LIMIT 1))");
  BOOST_TEST(param(*del, 1) == "<null>");

  // Every sent column is set; the unchanged body is neither set nor needed to match.
  const change touch{change_op::update, r, t.add({pg::col::text("1"), pg::col::text("n"), pg::col::unchanged()}),
                     old_tuple_kind::full, old_row};
  auto update = mirror::update_by_key(touch, id, touch.old(), true);
  BOOST_TEST_REQUIRE(update.has_value());
  BOOST_TEST_REQUIRE(update->has_value());
  BOOST_TEST((*update)->sql ==
             R"(UPDATE "public"."t" SET "id" = $1, "note" = $2)" + match +
                 R"(3 AND "note" IS NOT DISTINCT FROM $4 AND "body" IS NOT DISTINCT FROM $5 LIMIT 1))");
  BOOST_TEST(param(**update, 4) == "long body");
}

BOOST_AUTO_TEST_CASE(what_cannot_be_addressed_is_refused_without_a_value) {
  const auto full = table(replica_identity::full);
  using mirror::mirror_errc;
  // Where a transaction may be applied twice, a keyless table would get its inserts twice.
  auto repeated = mirror::row_identity::of(full, {}, true);
  BOOST_TEST_REQUIRE(!repeated);
  BOOST_TEST((repeated.error() == mirror_errc::no_usable_key));
  // A primary key column the publication leaves out cannot be read from the old row.
  auto unpublished = mirror::row_identity::of(full, {"id", "elsewhere"}, false);
  BOOST_TEST_REQUIRE(!unpublished);
  BOOST_TEST((unpublished.error() == mirror_errc::no_usable_key));
  auto nothing = mirror::row_identity::of(table(replica_identity::nothing), {}, false);
  BOOST_TEST_REQUIRE(!nothing);
  BOOST_TEST((nothing.error() == mirror_errc::no_usable_key));
  // DEFAULT and FULL with a primary key are fine where transactions repeat.
  BOOST_TEST(mirror::row_identity::of(table(replica_identity::default_key), {}, true).has_value());
  BOOST_TEST(mirror::row_identity::of(full, {"id"}, true).has_value());

  // The server inlines every TOASTed value of a FULL old row; a stream where one is missing anyway
  // cannot say which row it meant.
  tuples t;
  const auto partial = t.add({pg::col::text("1"), pg::col::text(std::string{secret}), pg::col::unchanged()});
  auto del =
      mirror::delete_by_key(change{change_op::delete_, full, {}, old_tuple_kind::full, partial}, identity(full, {}));
  BOOST_TEST_REQUIRE(!del);
  BOOST_TEST((del.error() == mirror_errc::old_value_missing));
  BOOST_TEST(del.error().message().find(secret) == std::string::npos);
  auto none = mirror::delete_by_key(change{change_op::delete_, full, {}}, identity(full, {}));
  BOOST_TEST_REQUIRE(!none);
  BOOST_TEST((none.error() == mirror_errc::old_value_missing));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // examples_pg_mirror_statements_tests
