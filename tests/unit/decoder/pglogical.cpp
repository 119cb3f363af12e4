// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant::pglogical_decoder. The golden tests replay a real pglogical_output session and the
// pgoutput session of the very same WAL (tests/data/pglogical/, recorded by
// tests/data/wal2json/record.cpp) through the assembler and require the same transactions:
// changes, relation descriptions, typed values, unchanged columns, commit LSNs. The other tests
// feed hand-built messages of pglogical's native protocol.
#include <replicant/decoder/pglogical.hpp>

#include <boost/test/unit_test.hpp>

#include "support/checks/plugin_compare.hpp"
#include "support/wire/pgoutput_builder.hpp"
#include "support/wire/plugin_capture.hpp"
#include "support/wire/plugin_replay.hpp"

#include <replicant/assembler/assembler.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/decoder/catalog.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

BOOST_AUTO_TEST_SUITE(decoder_pglogical_tests)

namespace fs = std::filesystem;
using replicant::errc;
using replicant::pglogical_decoder;
using replicant::pglogical_options;
using replicant::relation_catalog;
using replicant::result;
using replicant::test::bytes;
using replicant::test::change_record;
using replicant::test::field_record;
using replicant::test::replay_result;
using replicant::test::wire;

namespace {

const fs::path data_dir = fs::path{REPLICANT_TEST_DATA_DIR} / "pglogical";

auto recorded_options() -> pglogical_options {
  pglogical_options o;
  o.replication_sets = {"default", "default_insert_only"};
  return o;
}

auto replay_pgoutput() -> replay_result {
  return replicant::test::replay_pgoutput_capture(data_dir / "plugins.pgoutput.pg15.capture");
}

auto replay_pglogical(bool with_catalog) -> replay_result {
  const auto capture = replicant::test::read_plugin_capture(data_dir / "plugins.pg15.capture");
  BOOST_TEST_REQUIRE(capture.plugin == "pglogical_output");
  pglogical_decoder decoder{recorded_options(), with_catalog ? capture.catalog() : relation_catalog{}};
  BOOST_TEST_REQUIRE(capture.options == decoder.start_options().value());
  replay_result out = replicant::test::replay_translated(decoder, capture.records);
  BOOST_TEST_REQUIRE(decoder.startup().has_value());
  BOOST_TEST(decoder.startup()->min_proto_version == 1U);
  BOOST_TEST(decoder.startup()->max_proto_version == 1U);
  BOOST_TEST(decoder.startup()->encoding == "UTF8");
  BOOST_TEST(decoder.startup()->pglogical_version.substr(0, 2) == "2.");
  return out;
}

// pglogical has no logical messages: the pgoutput session's are the one thing it cannot carry.
auto without_messages(replay_result r) -> replay_result {
  BOOST_TEST(r.loose_messages.size() == 1U);
  r.loose_messages.clear();
  for (auto& t : r.transactions) t.messages.clear();
  return r;
}

// --- hand-built pglogical messages (PROTOCOL.md §3.2) --------------------------------------------

auto startup(std::string_view min = "1", std::string_view max = "1", std::string_view encoding = "UTF8",
             std::uint8_t format = 1) -> bytes {
  return wire{}
      .ch('S')
      .u8(format)
      .str("max_proto_version")
      .str(max)
      .str("min_proto_version")
      .str(min)
      .str("coltypes")
      .str("f")
      .str("database_encoding")
      .str(encoding)
      .str("encoding")
      .str(encoding)
      .str("pglogical_version")
      .str("2.4.2")
      .take();
}
auto begin(std::uint32_t xid = 900) -> bytes { return wire{}.ch('B').u8(0).u64(0x5000).i64(1'000'000).u32(xid).take(); }
auto commit() -> bytes { return wire{}.ch('C').u8(0).u64(0x5000).u64(0x5030).i64(1'000'000).take(); }
auto counted(wire& w, std::string_view s) -> wire& {
  return w.u8(static_cast<std::uint8_t>(s.size() + 1)).raw(s).u8(0);
}
// Relation 'R' with (name, key flag) columns.
auto relation(std::uint32_t oid, std::string_view schema, std::string_view table,
              const std::vector<std::pair<std::string, bool>>& columns) -> bytes {
  wire w;
  w.ch('R').u8(0).u32(oid);
  counted(w, schema);
  counted(w, table);
  w.ch('A').u16(static_cast<std::uint16_t>(columns.size()));
  for (const auto& [name, key] : columns) {
    w.ch('C').u8(key ? 1 : 0).ch('N').u16(static_cast<std::uint16_t>(name.size() + 1)).raw(name).u8(0);
  }
  return w.take();
}
// A tuple: nullopt is NULL, "\x01u" unchanged TOAST, anything else text.
auto tuple(wire& w, const std::vector<std::optional<std::string>>& values) -> wire& {
  w.ch('T').u16(static_cast<std::uint16_t>(values.size()));
  for (const auto& v : values) {
    if (!v) {
      w.ch('n');
    } else if (*v == "\x01u") {
      w.ch('u');
    } else {
      w.ch('t').u32(static_cast<std::uint32_t>(v->size() + 1)).raw(*v).u8(0);
    }
  }
  return w;
}
auto insert(std::uint32_t oid, const std::vector<std::optional<std::string>>& values) -> bytes {
  wire w;
  w.ch('I').u8(0).u32(oid).ch('N');
  return tuple(w, values).take();
}
auto update(std::uint32_t oid, const std::optional<std::vector<std::optional<std::string>>>& key,
            const std::vector<std::optional<std::string>>& values) -> bytes {
  wire w;
  w.ch('U').u8(0).u32(oid);
  if (key) tuple(w.ch('K'), *key);
  w.ch('N');
  return tuple(w, values).take();
}
auto remove(std::uint32_t oid, const std::vector<std::optional<std::string>>& key) -> bytes {
  wire w;
  w.ch('D').u8(0).u32(oid).ch('K');
  return tuple(w, key).take();
}
auto queue_relation() -> bytes {
  return relation(4242, "pglogical", "queue",
                  {{"queued_at", false},
                   {"role", false},
                   {"replication_sets", false},
                   {"message_type", false},
                   {"message", false}});
}
auto queue_row(std::string_view type, std::string_view message) -> bytes {
  return insert(4242, {"2026-01-01 00:00:00+00", "postgres", "{default}", std::string{type}, std::string{message}});
}

struct session {
  pglogical_decoder decoder;
  replicant::assembler assembler{};
  replay_result out{};
  replicant::test::recording_handler handler{out};
  std::string emitted_types{};

  explicit session(relation_catalog catalog = {}) : decoder(pglogical_options{{"default"}, true}, std::move(catalog)) {}

  auto feed(const bytes& message) -> result<void> {
    return decoder.translate(message, [&](std::span<const std::byte> m) {
      emitted_types.push_back(static_cast<char>(m[0]));
      return assembler.push(m, handler);
    });
  }
  auto feed_all(std::initializer_list<bytes> messages) -> result<void> {
    for (const bytes& m : messages) {
      if (auto r = feed(m); !r) return r;
    }
    return {};
  }
};

auto orders_catalog() -> relation_catalog {
  relation_catalog c;
  replicant::relation_info r;
  r.oid = 16384;
  r.schema = "public";
  r.table = "orders";
  r.identity = replicant::replica_identity::default_key;
  r.columns = {{"id", 23, -1, true}, {"amount", 1700, (12 << 16 | 2) + 4, false}, {"note", 25, -1, false}};
  if (!c.add(r)) BOOST_FAIL("catalog refused");
  return c;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(pglogical_decoder_golden)

BOOST_AUTO_TEST_CASE(translates_a_real_session_into_what_pgoutput_sent_for_the_same_wal) {
  const replay_result expected = without_messages(replay_pgoutput());
  const replay_result got = replay_pglogical(true);
  BOOST_TEST_REQUIRE(expected.transactions.size() == 21U);
  replicant::test::require_same(expected, got);
  // pglogical sends Begin and Commit for every decoded transaction, also the ALTER TABLE's and the
  // fence's, which pgoutput 15 leaves out: empty commits.
  BOOST_TEST(expected.empty_commits.empty());
  BOOST_TEST(got.empty_commits.size() == 2U);
}

BOOST_AUTO_TEST_CASE(covers_the_scenario_the_capture_was_recorded_for) {
  const replay_result got = replay_pglogical(true);
  std::size_t truncates = 0;
  std::size_t full_rows = 0;
  std::size_t unchanged = 0;
  for (const auto& t : got.transactions) {
    for (const auto& c : t.changes) {
      truncates += c.op == "truncate" ? 1U : 0U;
      full_rows += c.old_kind == 'O' ? 1U : 0U;
      unchanged += c.unchanged.empty() ? 0U : 1U;
      // The queue table that carries pglogical's truncates never reaches the caller.
      BOOST_TEST(c.table.find("pglogical.") != 0U);
    }
  }
  BOOST_TEST(truncates == 3U);  // trunc_a and trunc_b together, then trunc_b alone
  BOOST_TEST(full_rows == 2U);
  BOOST_TEST(unchanged == 3U);
  BOOST_TEST(got.schema_changes == (std::vector<std::string>{"public.evolving additive", "public.evolving additive"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(without_a_catalog_delivers_text_and_guesses_full_identity_for_unflagged_tables) {
  const replay_result expected = without_messages(replay_pgoutput());
  const replay_result got = replay_pglogical(false);
  BOOST_TEST_REQUIRE(got.transactions.size() == expected.transactions.size());
  for (std::size_t i = 0; i < got.transactions.size(); ++i) {
    const auto& g = got.transactions[i];
    const auto& e = expected.transactions[i];
    BOOST_TEST(g.commit_lsn == e.commit_lsn);
    BOOST_TEST_REQUIRE(g.changes.size() == e.changes.size());
    for (std::size_t k = 0; k < g.changes.size(); ++k) {
      const auto& gc = g.changes[k];
      const auto& ec = e.changes[k];
      BOOST_TEST(gc.relation_oid == ec.relation_oid);  // pglogical sends the real OIDs
      BOOST_TEST(gc.identity == (gc.table == "public.keyless" ? 'f' : ec.identity));
      BOOST_TEST(gc.old_kind == ec.old_kind);
      BOOST_TEST(gc.unchanged == ec.unchanged, boost::test_tools::per_element());
      for (const auto& col : gc.columns) BOOST_TEST((col.type_oid == 0U && col.type_modifier == -1));
      BOOST_TEST_REQUIRE(gc.record.size() == ec.record.size());
      for (std::size_t f = 0; f < gc.record.size(); ++f) {
        // Type OID 0: every value is delivered as its text (value kind 5).
        const auto& shown = gc.record[f].shown;
        BOOST_TEST((shown == "NULL" || shown == "UNCHANGED" || shown.substr(0, 2) == "5:"), shown);
        BOOST_TEST((shown == "NULL") == (ec.record[f].shown == "NULL"));
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(pglogical_decoder_options)

BOOST_AUTO_TEST_CASE(asks_for_protocol_1_text_only_and_the_replication_sets) {
  pglogical_options o;
  o.replication_sets = {"default", "Orders_2"};
  const auto options = pglogical_decoder{o}.start_options();
  BOOST_TEST_REQUIRE(options.has_value());
  for (const char* part :
       {"expected_encoding 'UTF8'", "min_proto_version '1'", "max_proto_version '1'", "startup_params_format '1'",
        "proto_format 'native'", R"("binary.want_internal_basetypes" '0')", R"("binary.want_binary_basetypes" '0')",
        R"("pglogical.replication_set_names" '"default","Orders_2"')", R"("pglogical.forward_origins" 'all')"}) {
    BOOST_TEST(options->find(part) != std::string::npos, part);
  }
  o.forward_origins = false;
  BOOST_TEST(pglogical_decoder{o}.start_options()->find("forward_origins") == std::string::npos);
  BOOST_TEST(pglogical_decoder::plugin_name == "pglogical_output");
}

BOOST_AUTO_TEST_CASE(refuses_an_empty_set_list_and_names_of_another_shape) {
  BOOST_TEST(pglogical_decoder{}.start_options().error() == errc::invalid_options);
  for (const char* bad : {"Zq7 Vx9", "Zq7'Vx9", "", "Zq7\"Vx9"}) {
    pglogical_options o;
    o.replication_sets = {"default", bad};
    const auto r = pglogical_decoder{o}.start_options();
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST((r.error().category() == replicant::identifier_category()));
    BOOST_TEST(r.error().message().find("Zq7") == std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(builds_the_catalog_queries_from_validated_names) {
  const auto sets = relation_catalog::query_for_replication_sets(std::vector<std::string>{"default", "x_1"});
  BOOST_TEST_REQUIRE(sets.has_value());
  BOOST_TEST(sets->find("s.set_name IN ('default', 'x_1')") != std::string::npos);
  BOOST_TEST(relation_catalog::query_for_replication_sets({}).error() == errc::invalid_options);
  BOOST_TEST(!relation_catalog::query_for_replication_sets(std::vector<std::string>{"a'b"}).has_value());
  const std::vector<replicant::table_name> tables = {{"public", "orders"}};
  BOOST_TEST(relation_catalog::query_for_tables(tables)->find("('public', 'orders')") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(reads_catalog_rows_and_refuses_malformed_ones) {
  relation_catalog c;
  using row = std::vector<std::string_view>;
  BOOST_TEST(c.add_row(row{"16384", "public", "t", "i", "id", "23", "-1", "t"}).has_value());
  BOOST_TEST(c.add_row(row{"16384", "public", "t", "i", "v", "1043", "24", "f"}).has_value());
  BOOST_TEST(c.add_row(row{"16390", "s", "u", "f", "a", "25", "-1", "t"}).has_value());
  BOOST_TEST_REQUIRE(c.find(16384) != nullptr);
  BOOST_TEST(c.find(16384)->columns.size() == 2U);
  BOOST_TEST(c.find(16384)->columns[1].type_modifier == 24);
  BOOST_TEST((c.find(16384)->identity == replicant::replica_identity::index));
  BOOST_TEST(c.find("s", "u")->oid == 16390U);
  BOOST_TEST(c.find("s", "none") == nullptr);
  for (const row& bad :
       {row{"x", "public", "t", "d", "id", "23", "-1", "t"}, row{"1", "public", "t", "q", "id", "23", "-1", "t"},
        row{"1", "public", "t", "d", "id", "23", "-1", "yes"}, row{"1", "public", "t", "d", "", "23", "-1", "t"},
        row{"1", "public", "t", "d", "id", "-23", "-1", "t"}, row{"1", "public"}}) {
    BOOST_TEST(c.add_row(bad).error() == errc::decode_failure);
  }
  BOOST_TEST(c.relations().size() == 2U);
  // A second column of one name in a table.
  BOOST_TEST(c.add_row(row{"16390", "s", "u", "f", "a", "23", "-1", "t"}).error() == errc::decode_failure);
  // Descriptions no table can have are refused whole.
  replicant::relation_info twice;
  twice.oid = 1;
  twice.schema = "s";
  twice.table = "t";
  twice.columns = {{"a", 23, -1, false}, {"a", 25, -1, false}};
  BOOST_TEST(c.add(twice).error() == errc::invalid_options);
  twice.columns.pop_back();
  twice.table.clear();
  BOOST_TEST(c.add(twice).error() == errc::invalid_options);
  twice.table = "t";
  BOOST_TEST(c.add(twice).has_value());
  BOOST_TEST(c.relations().size() == 3U);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(pglogical_decoder_translation)

BOOST_AUTO_TEST_CASE(translates_begin_relation_rows_and_commit_typed_from_the_catalog) {
  session s{orders_catalog()};
  const auto r = s.feed_all(
      {startup(), begin(), relation(16384, "public", "orders", {{"id", true}, {"amount", false}, {"note", false}}),
       insert(16384, {"1", "12.50", std::nullopt}), update(16384, std::nullopt, {"1", "13.00", "\x01u"}),
       update(16384, std::vector<std::optional<std::string>>{"1", std::nullopt, std::nullopt}, {"2", "13.00", "x"}),
       remove(16384, {"2", std::nullopt, std::nullopt}), commit()});
  BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message()));
  BOOST_TEST(s.emitted_types == "BRIUUDC");
  BOOST_TEST_REQUIRE(s.out.transactions.size() == 1U);
  const auto& t = s.out.transactions[0];
  BOOST_TEST(t.xid == 900U);
  BOOST_TEST(t.commit_lsn == replicant::lsn{0x5000});
  BOOST_TEST(t.end_lsn == replicant::lsn{0x5030});
  BOOST_TEST_REQUIRE(t.changes.size() == 4U);
  BOOST_TEST(t.changes[0].identity == 'd');
  BOOST_TEST(t.changes[0].columns[1].type_oid == 1700U);
  BOOST_TEST(t.changes[0].columns[1].type_modifier == (12 << 16 | 2) + 4);
  BOOST_TEST(t.changes[0].record == (std::vector<field_record>{{"id", "2:1"}, {"amount", "4:12.50"}, {"note", "NULL"}}),
             boost::test_tools::per_element());
  BOOST_TEST(t.changes[1].unchanged == std::vector<std::string>{"note"}, boost::test_tools::per_element());
  BOOST_TEST(t.changes[1].old_kind == char{0});
  BOOST_TEST(t.changes[2].old_kind == 'K');
  BOOST_TEST(t.changes[3].old_kind == 'K');
  BOOST_TEST(t.changes[3].old[0].shown == "2:2");
}

// A numeric or bytea text without its type's shape (the types come from the catalog) is corrupt:
// translate() refuses the row, nothing of it reaches the assembler, and the error never repeats
// the value. Columns the catalog does not type are not looked at.
BOOST_AUTO_TEST_CASE(refuses_numeric_and_bytea_text_without_its_shape) {
  relation_catalog catalog = orders_catalog();
  replicant::relation_info blobs;
  blobs.oid = 16390;
  blobs.schema = "public";
  blobs.table = "blobs";
  blobs.columns = {{"id", 23, -1, true}, {"data", 17, -1, false}};
  BOOST_TEST_REQUIRE(catalog.add(blobs).has_value());
  const auto orders = relation(16384, "public", "orders", {{"id", true}, {"amount", false}, {"note", false}});
  const auto blob_table = relation(16390, "public", "blobs", {{"id", true}, {"data", false}});
  const auto key = std::vector<std::optional<std::string>>{"1", "s3cr3t", std::nullopt};
  const std::vector<bytes> bad{
      insert(16384, {"1", "s3cr3t-12.50", std::nullopt}),
      insert(16384, {"1", "1e5", std::nullopt}),
      update(16384, std::nullopt, {"1", "12.", "x"}),
      update(16384, key, {"1", "1.00", "x"}),
      remove(16384, key),
      insert(16390, {"1", "s3cr3t"}),
      insert(16390, {"1", "\\x0"}),
      insert(16390, {"1", "\\xg0"}),
  };
  for (std::size_t i = 0; i < bad.size(); ++i) {
    BOOST_TEST_CONTEXT("row " << i) {
      session s{catalog};
      BOOST_TEST_REQUIRE(s.feed_all({startup(), begin(), orders, blob_table}).has_value());
      const std::string before = s.emitted_types;
      const auto r = s.feed(bad[i]);
      BOOST_TEST_REQUIRE(!r.has_value());
      BOOST_TEST(r.error() == errc::decode_failure);
      BOOST_TEST(r.error().message().find("s3cr3t") == std::string::npos);
      BOOST_TEST(s.emitted_types == before, "nothing of the row was emitted");
    }
  }
  session s{catalog};
  BOOST_TEST(s.feed_all({startup(), begin(), orders, blob_table, insert(16384, {"1", "NaN", "s3cr3t"}),
                         insert(16390, {"1", "\\x00ffAB"}), insert(16390, {"2", "\\x"}), commit()})
                 .has_value());
  // Without a catalog nothing is typed, so nothing is looked at.
  session untyped;
  BOOST_TEST(untyped.feed_all({startup(), begin(), blob_table, insert(16390, {"1", "s3cr3t"}), commit()}).has_value());
}

BOOST_AUTO_TEST_CASE(marks_the_whole_old_row_of_an_unflagged_table_as_full) {
  session s;
  BOOST_TEST_REQUIRE(s.feed_all({startup(), begin(), relation(7, "public", "f", {{"id", false}, {"v", false}}),
                                 update(7, std::vector<std::optional<std::string>>{"1", "a"}, {"1", "b"}),
                                 remove(7, {"1", "b"}), commit()})
                         .has_value());
  const auto& t = s.out.transactions.at(0);
  BOOST_TEST(t.changes.at(0).identity == 'f');
  BOOST_TEST(t.changes.at(0).columns.at(0).key);
  BOOST_TEST(t.changes.at(0).columns.at(0).type_oid == 0U);
  BOOST_TEST(t.changes.at(0).old_kind == 'O');
  BOOST_TEST(t.changes.at(1).old_kind == 'O');
  BOOST_TEST(t.changes.at(0).old == (std::vector<field_record>{{"id", "5:1"}, {"v", "5:a"}}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(turns_a_queued_truncate_into_a_truncate_and_drops_the_other_queue_rows) {
  relation_catalog catalog = orders_catalog();
  replicant::relation_info odd;
  odd.oid = 16400;
  odd.schema = "s\u00e9";
  odd.table = "t\"x\U0001F600";
  odd.columns = {{"id", 23, -1, true}};
  if (!catalog.add(odd)) BOOST_FAIL("catalog refused");
  session s{catalog};
  const auto r = s.feed_all(
      {startup(), begin(), queue_relation(), queue_row("T", R"({"schema_name": "public","table_name": "orders"})"),
       queue_row("Q", R"J({"role": "x", "sql": "CREATE TABLE x ()"})J"),
       queue_row("T", R"( { "table_name" : "t\"x\ud83d\ude00", "schema_name": "s\u00e9" } )"), commit()});
  BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message()));
  BOOST_TEST(s.emitted_types == "BRTRTC");
  const auto& t = s.out.transactions.at(0);
  BOOST_TEST_REQUIRE(t.changes.size() == 2U);
  BOOST_TEST(t.changes[0].op == "truncate");
  BOOST_TEST(t.changes[0].table == "public.orders");
  BOOST_TEST(t.changes[0].relation_oid == 16384U);
  BOOST_TEST(t.changes[1].table == odd.schema + "." + odd.table);
  BOOST_TEST(s.decoder.find_relation(4242) == nullptr);  // the queue is never described
  BOOST_TEST(s.decoder.find_relation(16384) != nullptr);
}

BOOST_AUTO_TEST_CASE(refuses_a_queued_truncate_of_a_table_it_cannot_name) {
  session s;
  BOOST_TEST_REQUIRE(s.feed_all({startup(), begin(), queue_relation()}).has_value());
  BOOST_TEST(s.feed(queue_row("T", R"({"schema_name": "public","table_name": "nowhere"})")).error() ==
             errc::protocol_violation);
  for (const char* bad :
       {R"({"schema_name": "public"})", R"({"schema_name": "a", "table_name": 1})", "{",
        R"({"schema_name": "a\u0000", "table_name": "b"})", R"({"schema_name": "\ud800", "table_name": "b"})",
        R"({"schema_name": "a", "table_name": "b"} x)"}) {
    session q;
    BOOST_TEST_REQUIRE(q.feed_all({startup(), begin(), queue_relation()}).has_value());
    BOOST_TEST(q.feed(queue_row("T", bad)).error() == errc::decode_failure, bad);
  }
}

BOOST_AUTO_TEST_CASE(carries_the_origin_over) {
  session s;
  const bytes origin = [] {
    wire w;
    w.ch('O').u8(0).u64(0xABCDEF0);
    return counted(w, "node_a").take();
  }();
  BOOST_TEST_REQUIRE(
      s.feed_all({startup(), begin(), origin, relation(7, "public", "t", {{"id", true}}), insert(7, {"1"}), commit()})
          .has_value());
  BOOST_TEST(s.out.transactions.at(0).origin == "node_a");
  BOOST_TEST(s.out.transactions.at(0).origin_lsn == replicant::lsn{0xABCDEF0});
}

BOOST_AUTO_TEST_CASE(expects_a_new_startup_and_new_descriptions_after_reset) {
  session s;
  BOOST_TEST_REQUIRE(
      s.feed_all({startup(), begin(), relation(7, "public", "t", {{"id", true}}), insert(7, {"1"})}).has_value());
  s.decoder.reset();
  s.assembler.reset();
  BOOST_TEST(!s.decoder.startup().has_value());
  BOOST_TEST(!s.decoder.in_transaction());
  BOOST_TEST(s.feed(begin()).error() == errc::protocol_violation);
  BOOST_TEST_REQUIRE(s.feed_all({startup(), begin()}).has_value());
  BOOST_TEST(s.feed(insert(7, {"1"})).error() == errc::protocol_violation);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(pglogical_decoder_errors)

BOOST_AUTO_TEST_CASE(halts_on_a_protocol_it_does_not_speak) {
  for (const bytes& s : {startup("2", "3"), startup("0", "0"), startup("1", "1", "UTF8", 2),
                         wire{}.ch('S').u8(1).str("encoding").str("UTF8").take()}) {
    pglogical_decoder d;
    BOOST_TEST(d.translate(s, [](std::span<const std::byte>) {}).error() == replicant::errc::protocol_unsupported);
  }
  pglogical_decoder latin;
  BOOST_TEST(latin.translate(startup("1", "1", "LATIN1"), [](std::span<const std::byte>) {}).error() ==
             errc::unsupported_server);
}

BOOST_AUTO_TEST_CASE(refuses_malformed_messages_without_echoing_them) {
  const bytes rel = relation(7, "public", "t", {{"id", true}, {"v", false}});
  const auto edit = [](bytes b, std::size_t at, std::uint8_t v) {
    b.at(at) = std::byte{v};
    return b;
  };
  const auto cut = [](bytes b, std::size_t n) {
    b.resize(b.size() - n);
    return b;
  };
  const auto grow = [](bytes b) {
    b.push_back(std::byte{0});
    return b;
  };
  const bytes row = insert(7, {"Zq7Vx9", std::nullopt});
  const std::vector<bytes> malformed = {
      bytes{},
      wire{}.ch('X').take(),
      cut(begin(), 1),
      grow(begin()),
      edit(begin(), 1, 1),  // flags
      cut(commit(), 3),
      cut(row, 1),          // a column short
      edit(row, 21, 'x'),   // the text's NUL
      edit(row, 10, 'q'),   // column kind
      edit(row, 11, 0x80),  // a negative text length
      edit(row, 6, 'K'),    // an insert's tuple marker
      edit(row, 7, 'X'),    // the tuple marker
      edit(row, 14, 0),     // text length 0 (no room for the NUL)
      grow(row),
      wire{}.ch('U').u8(0).u32(7).ch('N').take(),  // no new tuple after its marker
      wire{}.ch('D').u8(0).u32(7).ch('N').take(),
      edit(rel, 1, 1),                                            // relation flags
      edit(rel, 17, 'X'),                                         // the 'A' marker
      edit(rel, 13, 'X'),                                         // the schema's NUL
      edit(rel, 20, 2),                                           // an unknown column flag
      relation(8, "public", "u", {{"id", true}, {"id", false}}),  // a name twice
  };
  for (std::size_t i = 0; i < malformed.size(); ++i) {
    BOOST_TEST_CONTEXT("input " << i) {
      session s;
      BOOST_TEST_REQUIRE(s.feed_all({startup(), begin(), rel}).has_value());
      const auto r = s.feed(malformed[i]);
      BOOST_TEST_REQUIRE(!r.has_value());
      BOOST_TEST(r.error() == errc::decode_failure);
      BOOST_TEST(r.error().message().find("Zq7") == std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_CASE(refuses_well_formed_messages_out_of_place) {
  const bytes rel = relation(7, "public", "t", {{"id", true}, {"v", false}});
  const bytes internal_value = [] {
    wire w;
    w.ch('I').u8(0).u32(7).ch('N').ch('T').u16(2).ch('i').u32(4).u32(1).ch('n');
    return w.take();
  }();
  struct out_of_place {
    std::vector<bytes> before;
    bytes message;
  };
  const std::vector<out_of_place> cases = {
      {{}, begin()},                                  // no startup yet
      {{startup()}, commit()},                        // no transaction
      {{startup(), begin()}, begin()},                // nested
      {{startup(), rel}, insert(7, {"1", "a"})},      // outside a transaction
      {{startup(), begin()}, insert(7, {"1", "a"})},  // relation not described
      {{startup(), begin(), rel}, insert(7, {"1"})},  // tuple narrower than the relation
      {{startup(), begin(), rel}, internal_value},    // an internal-format value: never asked for
      {{startup(), begin()}, startup()},              // a startup message inside a transaction
      {{startup(), begin()}, wire{}.ch('C').u8(0).u64(0x5008).u64(0x5030).i64(1).take()},  // another LSN
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    BOOST_TEST_CONTEXT("case " << i) {
      session s;
      for (const bytes& b : cases[i].before) BOOST_TEST_REQUIRE(s.feed(b).has_value());
      BOOST_TEST(s.feed(cases[i].message).error() == errc::protocol_violation);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // decoder_pglogical_tests
