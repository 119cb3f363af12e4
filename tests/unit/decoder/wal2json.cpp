// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant::wal2json_decoder. The golden tests replay a real wal2json session and the pgoutput
// session of the very same WAL (tests/data/wal2json/, recorded by record.cpp there) through the
// assembler and require the same transactions: changes, relation descriptions, typed values,
// unchanged columns, commit LSNs. The other tests feed hand-written objects of wal2json's shape.
#include <replicant/decoder/wal2json.hpp>

#include <boost/test/unit_test.hpp>

#include "support/checks/plugin_compare.hpp"
#include "support/wire/plugin_capture.hpp"
#include "support/wire/plugin_replay.hpp"

#include <replicant/assembler/assembler.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/decoder/catalog.hpp>
#include <replicant/decoder/detail/wal2json_text.hpp>
#include <replicant/model/pg_type.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

BOOST_AUTO_TEST_SUITE(decoder_wal2json_tests)

namespace fs = std::filesystem;
using replicant::errc;
using replicant::relation_catalog;
using replicant::result;
using replicant::wal2json_decoder;
using replicant::wal2json_options;
using replicant::test::change_record;
using replicant::test::field_record;
using replicant::test::replay_result;

namespace {

const fs::path data_dir = fs::path{REPLICANT_TEST_DATA_DIR} / "wal2json";

auto bytes_of(std::string_view s) -> std::span<const std::byte> { return std::as_bytes(std::span{s.data(), s.size()}); }

// The options of the recording: its tables, with messages.
auto recorded_options() -> wal2json_options {
  wal2json_options o;
  for (const char* t : {"kinds", "docs", "full_identity", "keyless", "evolving", "trunc_a", "trunc_b"}) {
    o.tables.push_back({"public", t});
  }
  o.messages = true;
  o.allow_special_numbers_as_null = true;  // recorded from wal2json 2.5, which lacks the option
  return o;
}

auto replay_pgoutput() -> replay_result {
  return replicant::test::replay_pgoutput_capture(data_dir / "plugins.pgoutput.pg15.capture");
}

auto replay_wal2json(bool with_catalog) -> replay_result {
  const auto capture = replicant::test::read_plugin_capture(data_dir / "plugins.pg15.capture");
  BOOST_TEST_REQUIRE(capture.plugin == "wal2json");
  wal2json_decoder decoder{recorded_options(), with_catalog ? capture.catalog() : relation_catalog{}};
  // The recording used exactly what the decoder asks for.
  BOOST_TEST_REQUIRE(capture.options == decoder.start_options().value());
  replay_result out = replicant::test::replay_translated(decoder, capture.records);
  BOOST_TEST(!decoder.in_transaction());
  return out;
}

auto find_change(const replay_result& r, std::string_view table, std::string_view first_field) -> const change_record* {
  for (const auto& t : r.transactions) {
    for (const auto& c : t.changes) {
      if (c.table == table && !c.record.empty() && c.record[0].shown == first_field) return &c;
    }
  }
  return nullptr;
}

// wal2json 2.5 prints NaN and the infinities of numeric and float columns as JSON null (there is no
// numeric-data-types-as-string before 2.6): the one value difference the golden test expects.
auto expect_special_floats_as_null(replay_result& expected) -> void {
  for (auto& t : expected.transactions) {
    for (auto& c : t.changes) {
      if (c.table != "public.kinds" || c.record.empty() || c.record[0].shown != "2:2") continue;
      for (auto& f : c.record) {
        if (f.name == "c_float4" || f.name == "c_float8" || f.name == "c_numeric") {
          BOOST_TEST((f.shown == "3:NaN" || f.shown == "3:Infinity" || f.shown == "4:NaN"), f.name << " " << f.shown);
          f.shown = "NULL";
        }
      }
    }
  }
}

// Feeds hand-written objects and collects what the assembler delivers.
struct session {
  wal2json_decoder decoder;
  replicant::assembler assembler{};
  replay_result out{};
  replicant::test::recording_handler handler{out};
  std::size_t emitted = 0;
  std::string emitted_types{};

  explicit session(wal2json_options o = {}, relation_catalog catalog = {})
      : decoder(std::move(o), std::move(catalog)) {}

  auto feed(std::string_view json) -> result<void> {
    return decoder.translate(bytes_of(json), [&](std::span<const std::byte> m) {
      ++emitted;
      emitted_types.push_back(static_cast<char>(m[0]));
      return assembler.push(m, handler);
    });
  }
};

constexpr std::string_view begin_1 =
    R"({"action":"B","xid":700,"timestamp":"2024-02-29 12:00:00.5+00","lsn":"0/1000","nextlsn":"0/1030"})";
constexpr std::string_view commit_1 =
    R"({"action":"C","xid":700,"timestamp":"2024-02-29 12:00:00.5+00","lsn":"0/1000","nextlsn":"0/1030"})";

auto column_names(const change_record& c) -> std::vector<std::string> {
  std::vector<std::string> out;
  for (const auto& col : c.columns) out.push_back(col.name);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(wal2json_decoder_golden)

BOOST_AUTO_TEST_CASE(translates_a_real_session_into_what_pgoutput_sent_for_the_same_wal) {
  replay_result expected = replay_pgoutput();
  const replay_result got = replay_wal2json(true);
  BOOST_TEST_REQUIRE(expected.transactions.size() == 21U);
  expect_special_floats_as_null(expected);
  replicant::test::require_same(expected, got);
  // wal2json sends Begin and Commit also for transactions without any change of the tables (the
  // ALTER TABLE, the fence after the workload), which pgoutput 15 leaves out: empty commits.
  BOOST_TEST(expected.empty_commits.empty());
  BOOST_TEST(got.empty_commits.size() == 2U);
}

BOOST_AUTO_TEST_CASE(covers_the_scenario_the_capture_was_recorded_for) {
  const replay_result got = replay_wal2json(true);
  // Unchanged TOAST: the UPDATE that left `big` alone.
  const change_record* second = find_change(got, "public.docs", "2:1");
  BOOST_TEST_REQUIRE(second != nullptr);
  std::set<std::string> ops;
  std::size_t unchanged_updates = 0;
  std::size_t key_updates = 0;
  std::size_t full_rows = 0;
  for (const auto& t : got.transactions) {
    for (const auto& c : t.changes) {
      ops.insert(c.op);
      if (c.op == "update" && c.unchanged == std::vector<std::string>{"big"}) ++unchanged_updates;
      if (c.op == "update" && c.old_kind == 'K') ++key_updates;
      if (c.old_kind == 'O') ++full_rows;
    }
  }
  BOOST_TEST(ops == (std::set<std::string>{"insert", "update", "delete", "truncate"}));
  BOOST_TEST(unchanged_updates == 3U);  // docs twice (note, then the key), full_identity once
  BOOST_TEST(key_updates == 1U);
  BOOST_TEST(full_rows == 2U);  // full_identity's update and delete
  BOOST_TEST(got.schema_changes == (std::vector<std::string>{"public.evolving additive", "public.evolving additive"}),
             boost::test_tools::per_element());
  // The exact digits of a 40-digit numeric and a 2^53 + 1 bigint, never rounded through a double.
  const change_record* kinds = find_change(got, "public.kinds", "2:1");
  BOOST_TEST_REQUIRE(kinds != nullptr);
  for (const auto& f : kinds->record) {
    if (f.name == "c_numeric") BOOST_TEST(f.shown == "4:1234567890123456789012345678901234567890.0123456789");
    if (f.name == "c_int8") BOOST_TEST(f.shown == "2:9007199254740993");
    if (f.name == "c_bytea") BOOST_TEST(f.shown.find("00ff10deadbeef") != std::string::npos);
  }
  BOOST_TEST(got.loose_messages.size() == 1U);
}

BOOST_AUTO_TEST_CASE(without_a_catalog_differs_only_in_oids_and_guessed_identities) {
  replay_result expected = replay_pgoutput();
  replay_result got = replay_wal2json(false);
  expect_special_floats_as_null(expected);
  // Synthetic OIDs count down from the top of the OID range, one per table, stable in a session.
  std::set<std::uint32_t> oids;
  for (auto& t : got.transactions) {
    for (auto& c : t.changes) {
      BOOST_TEST(c.relation_oid >= 0xFFFF'FF00U);
      oids.insert(c.relation_oid);
      c.relation_oid = 0;
    }
  }
  BOOST_TEST(oids.size() == 7U);
  for (auto& t : expected.transactions) {
    for (auto& c : t.changes) {
      c.relation_oid = 0;
      // Without the catalog, the replica identity is guessed from the primary key wal2json
      // reports: FULL for a table without one (keyless), DEFAULT with the primary key otherwise,
      // although full_identity is FULL (its whole old row is still recognised as such: 'O').
      if (c.table == "public.keyless") {
        BOOST_TEST(c.identity == 'd');
        c.identity = 'f';
        for (auto& col : c.columns) col.key = true;
      }
      if (c.table == "public.full_identity") {
        BOOST_TEST(c.identity == 'f');
        c.identity = 'd';
        for (auto& col : c.columns) col.key = col.name == "id";
      }
    }
  }
  replicant::test::require_same(expected, got);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(wal2json_decoder_options)

BOOST_AUTO_TEST_CASE(asks_for_format_version_2_with_lsns_types_keys_and_the_tables) {
  wal2json_options o;
  o.tables = {{"public", "orders"}, {"Sales", "line_items$2"}};
  const wal2json_decoder d{o};
  const auto options = d.start_options();
  BOOST_TEST_REQUIRE(options.has_value());
  for (const char* part :
       {R"("format-version" '2')", R"("include-lsn" '1')", R"("include-xids" '1')", R"("include-timestamp" '1')",
        R"("include-type-oids" '1')", R"("include-pk" '1')", R"("include-typmod" '1')",
        R"("actions" 'insert,update,delete,truncate')", R"("add-tables" 'public.orders,Sales.line_items$2')"}) {
    BOOST_TEST(options->find(part) != std::string::npos, part);
  }
  // Asked for by default: without it NaN and infinities would arrive as NULL.
  BOOST_TEST(options->find(R"("numeric-data-types-as-string" '1')") != std::string::npos);
  o.allow_special_numbers_as_null = true;
  BOOST_TEST(wal2json_decoder{o}.start_options()->find("numeric-data-types-as-string") == std::string::npos);
  BOOST_TEST(wal2json_decoder::plugin_name == "wal2json");
}

BOOST_AUTO_TEST_CASE(refuses_an_empty_table_list_and_names_of_another_shape) {
  BOOST_TEST(wal2json_decoder{}.start_options().error() == errc::invalid_options);
  for (const auto& bad : {replicant::table_name{"public", "Zq7 Vx9"}, replicant::table_name{"", "Zq7Vx9"},
                          replicant::table_name{"public", "Zq7.Vx9"}, replicant::table_name{"Zq7'Vx9", "t"}}) {
    wal2json_options o;
    o.tables = {bad};
    const auto r = wal2json_decoder{o}.start_options();
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST((r.error().category() == replicant::identifier_category()));
    BOOST_TEST(r.error().message().find("Zq7") == std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(escapes_what_the_table_list_syntax_reserves) {
  BOOST_TEST(replicant::detail::wal2json_escape_name("plain_Name$1") == "plain_Name$1");
  BOOST_TEST(replicant::detail::wal2json_escape_name("a.b,c d*e\\f") == R"(a\.b\,c\ d\*e\\f)");
}

BOOST_AUTO_TEST_CASE(reads_type_modifiers_back_from_type_names) {
  using replicant::detail::typmod_from_type_name;
  BOOST_TEST(typmod_from_type_name("character varying(20)") == 24);
  BOOST_TEST(typmod_from_type_name("character varying(5)[]") == 9);
  BOOST_TEST(typmod_from_type_name("character(6)") == 10);
  BOOST_TEST(typmod_from_type_name("numeric(12,4)") == (12 << 16 | 4) + 4);
  BOOST_TEST(typmod_from_type_name("numeric(5,-2)") == (5 << 16 | (-2 & 0x7FF)) + 4);
  BOOST_TEST(typmod_from_type_name("bit(3)") == 3);
  BOOST_TEST(typmod_from_type_name("bit varying(7)") == 7);
  BOOST_TEST(typmod_from_type_name("time(3) without time zone") == 3);
  BOOST_TEST(typmod_from_type_name("timestamp(0) with time zone") == 0);
  BOOST_TEST(typmod_from_type_name("interval(2)") == (0x7FFF << 16 | 2));
  BOOST_TEST(typmod_from_type_name("interval year to month") == ((1 << 2 | 1 << 1) << 16 | 0xFFFF));
  BOOST_TEST(typmod_from_type_name("interval day to second(3)") == ((1 << 3 | 1 << 10 | 1 << 11 | 1 << 12) << 16 | 3));
  for (const char* none : {"integer", "text", "numeric", "character varying", "interval", "timestamp with time zone",
                           "\"My Type\"", "numeric(1000000000,1)", "character varying(x)", "time(3)"}) {
    BOOST_TEST(typmod_from_type_name(none) == -1, none);
  }
}

BOOST_AUTO_TEST_CASE(knows_which_type_names_always_show_their_modifier) {
  using replicant::detail::type_name_shows_modifier;
  for (const std::uint32_t shown : {1043U, 1015U, 1700U, 1231U}) BOOST_TEST(type_name_shows_modifier(shown), shown);
  for (const std::uint32_t not_shown : {23U, 25U, 1042U, 1184U, 16384U}) {
    BOOST_TEST(!type_name_shows_modifier(not_shown), not_shown);
  }
}

BOOST_AUTO_TEST_CASE(checks_json_number_tokens) {
  using replicant::detail::is_json_number;
  for (const char* ok : {"0", "-0", "1.5", "1e-300", "1E+5", "-12.0e3", "1234567890123456789012345678901234567890"}) {
    BOOST_TEST(is_json_number(ok), ok);
  }
  for (const char* bad : {"", "-", "01", "1.", ".5", "1e", "+1", "NaN", "Infinity", "1 ", "0x1"}) {
    BOOST_TEST(!is_json_number(bad), bad);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(wal2json_decoder_translation)

BOOST_AUTO_TEST_CASE(leaves_out_unchanged_toast_and_recognises_a_dropped_fixed_width_column) {
  session s{{}, {}};
  BOOST_TEST_REQUIRE(s.feed(begin_1).has_value());
  BOOST_TEST_REQUIRE(s.feed(R"({"action":"I","xid":700,"schema":"public","table":"t","columns":[)"
                            R"({"name":"id","type":"integer","typeoid":23,"value":1},)"
                            R"({"name":"big","type":"text","typeoid":25,"value":"long"},)"
                            R"({"name":"n","type":"bigint","typeoid":20,"value":5}],"pk":[{"name":"id"}]})")
                         .has_value());
  // `big` left out: unchanged TOAST. Same shape, no new description.
  BOOST_TEST_REQUIRE(
      s.feed(R"({"action":"U","xid":700,"schema":"public","table":"t","columns":[)"
             R"({"name":"id","type":"integer","typeoid":23,"value":1},)"
             R"({"name":"n","type":"bigint","typeoid":20,"value":6}],)"
             R"("identity":[{"name":"id","type":"integer","typeoid":23,"value":1}],"pk":[{"name":"id"}]})")
          .has_value());
  // `n` (bigint, never TOASTed) left out: it was dropped. A new description, destructive.
  BOOST_TEST_REQUIRE(
      s.feed(R"({"action":"U","xid":700,"schema":"public","table":"t","columns":[)"
             R"({"name":"id","type":"integer","typeoid":23,"value":1}],)"
             R"("identity":[{"name":"id","type":"integer","typeoid":23,"value":1}],"pk":[{"name":"id"}]})")
          .has_value());
  BOOST_TEST_REQUIRE(s.feed(commit_1).has_value());
  BOOST_TEST(s.emitted_types == "BRIURUC");
  BOOST_TEST_REQUIRE(s.out.transactions.size() == 1U);
  const auto& t = s.out.transactions[0];
  BOOST_TEST(t.xid == 700U);
  BOOST_TEST(t.commit_lsn == replicant::lsn{0x1000});
  BOOST_TEST(t.end_lsn == replicant::lsn{0x1030});
  BOOST_TEST_REQUIRE(t.changes.size() == 3U);
  BOOST_TEST(t.changes[1].unchanged == std::vector<std::string>{"big"}, boost::test_tools::per_element());
  BOOST_TEST(t.changes[1].old_kind == char{0});  // the key kept its value: no old tuple, as pgoutput
  BOOST_TEST(column_names(t.changes[2]) == (std::vector<std::string>{"id", "big"}), boost::test_tools::per_element());
  BOOST_TEST(t.changes[2].unchanged == std::vector<std::string>{"big"}, boost::test_tools::per_element());
  BOOST_TEST(s.out.schema_changes == std::vector<std::string>{"public.t destructive"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(describes_a_table_first_seen_in_an_update_again_when_an_insert_shows_more) {
  session s;
  BOOST_TEST_REQUIRE(s.feed(begin_1).has_value());
  BOOST_TEST_REQUIRE(
      s.feed(R"({"action":"U","xid":700,"schema":"s","table":"t","columns":[)"
             R"({"name":"id","type":"integer","typeoid":23,"value":2}],)"
             R"("identity":[{"name":"id","type":"integer","typeoid":23,"value":1}],"pk":[{"name":"id"}]})")
          .has_value());
  BOOST_TEST_REQUIRE(
      s.feed(R"({"action":"I","xid":700,"schema":"s","table":"t","columns":[)"
             R"({"name":"id","type":"integer","typeoid":23,"value":3},)"
             R"({"name":"doc","type":"jsonb","typeoid":3802,"value":"{\"a\": 1}"}],"pk":[{"name":"id"}]})")
          .has_value());
  BOOST_TEST_REQUIRE(s.feed(commit_1).has_value());
  BOOST_TEST_REQUIRE(s.out.transactions.size() == 1U);
  const auto& c = s.out.transactions[0].changes;
  BOOST_TEST(c[0].old_kind == 'K');  // the key changed from 1 to 2
  BOOST_TEST(c[0].old == (std::vector<field_record>{{"id", "2:1"}}), boost::test_tools::per_element());
  BOOST_TEST(c[1].record[1].shown == "12:{\"a\": 1}");
  BOOST_TEST(s.out.schema_changes == std::vector<std::string>{"s.t additive"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(describes_a_table_again_when_a_type_modifier_changes) {
  session s;
  const auto insert = [](std::string_view type) {
    return std::string{R"({"action":"I","xid":700,"schema":"public","table":"t","columns":[{"name":"v","type":")"} +
           std::string{type} + R"(","typeoid":1043,"value":"x"}],"pk":[]})";
  };
  BOOST_TEST_REQUIRE(s.feed(begin_1).has_value());
  BOOST_TEST_REQUIRE(s.feed(insert("character varying(10)")).has_value());
  BOOST_TEST_REQUIRE(s.feed(insert("character varying(10)")).has_value());
  BOOST_TEST_REQUIRE(s.feed(insert("character varying(30)")).has_value());
  BOOST_TEST_REQUIRE(s.feed(commit_1).has_value());
  BOOST_TEST(s.emitted_types == "BRIIRIC");
  const auto& c = s.out.transactions.at(0).changes;
  BOOST_TEST(c.at(0).columns.at(0).type_modifier == 14);
  BOOST_TEST(c.at(2).columns.at(0).type_modifier == 34);
  BOOST_TEST(s.out.schema_changes.size() == 1U);
}

// A varchar or numeric name without a modifier means none: the widening to an unbounded varchar
// (or an unconstrained numeric) is described, as pgoutput describes it, and classified additive.
BOOST_AUTO_TEST_CASE(describes_a_widening_to_an_unbounded_varchar_or_numeric) {
  session s;
  const auto insert = [](std::string_view type, std::uint32_t oid) {
    // A NULL value: what the shape says matters here, not how a value of the type is spelled.
    return std::string{R"({"action":"I","xid":700,"schema":"public","table":"t","columns":[{"name":"v","type":")"} +
           std::string{type} + R"(","typeoid":)" + std::to_string(oid) + R"(,"value":null}],"pk":[]})";
  };
  BOOST_TEST_REQUIRE(s.feed(begin_1).has_value());
  BOOST_TEST_REQUIRE(s.feed(insert("character varying(10)", 1043)).has_value());
  BOOST_TEST_REQUIRE(s.feed(insert("character varying", 1043)).has_value());
  BOOST_TEST_REQUIRE(s.feed(insert("character varying", 1043)).has_value());
  BOOST_TEST_REQUIRE(s.feed(commit_1).has_value());
  const auto& c = s.out.transactions.at(0).changes;
  BOOST_TEST(c.at(0).columns.at(0).type_modifier == 14);
  BOOST_TEST(c.at(1).columns.at(0).type_modifier == -1);
  BOOST_TEST(s.out.schema_changes == std::vector<std::string>{"public.t additive"}, boost::test_tools::per_element());

  session n;
  BOOST_TEST_REQUIRE(n.feed(begin_1).has_value());
  BOOST_TEST_REQUIRE(n.feed(insert("numeric(10,2)", 1700)).has_value());
  BOOST_TEST_REQUIRE(n.feed(insert("numeric", 1700)).has_value());
  BOOST_TEST_REQUIRE(n.feed(commit_1).has_value());
  BOOST_TEST(n.out.transactions.at(0).changes.at(1).columns.at(0).type_modifier == -1);
  BOOST_TEST(n.out.schema_changes == std::vector<std::string>{"public.t additive"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(maps_json_values_back_to_the_text_output_of_each_type) {
  session s;  // numbers as strings, as 2.6 sends them by default
  BOOST_TEST_REQUIRE(s.feed(begin_1).has_value());
  BOOST_TEST_REQUIRE(s.feed(R"({"action":"I","xid":700,"schema":"public","table":"v","columns":[)"
                            R"({"name":"b","type":"boolean","typeoid":16,"value":false},)"
                            R"({"name":"f","type":"double precision","typeoid":701,"value":"NaN"},)"
                            R"({"name":"n","type":"numeric","typeoid":1700,"value":"-Infinity"},)"
                            R"({"name":"e","type":"double precision","typeoid":701,"value":1e-300},)"
                            R"({"name":"x","type":"bytea","typeoid":17,"value":"00ff"},)"
                            R"({"name":"a","type":"text[]","typeoid":1009,"value":"{\"a b\",NULL}"},)"
                            R"({"name":"t","type":"text","typeoid":25,"value":"line\nbreak \u00e9 \"q\""},)"
                            R"({"name":"big","type":"bigint","typeoid":20,"value":-9223372036854775808},)"
                            R"({"name":"d","type":"posint","typeoid":-123,"value":"5"}],"pk":[]})")
                         .has_value());
  BOOST_TEST_REQUIRE(s.feed(commit_1).has_value());
  const auto& c = s.out.transactions.at(0).changes.at(0);
  BOOST_TEST(c.identity == 'f');                     // no primary key, no catalog: taken as REPLICA IDENTITY FULL
  BOOST_TEST(c.columns[8].type_oid == 4294967173U);  // "%d" of an OID above 2^31
  const std::vector<std::string> shown = [&] {
    std::vector<std::string> out;
    for (const auto& f : c.record) out.push_back(f.shown);
    return out;
  }();
  BOOST_TEST(shown[0] == "1:f");
  BOOST_TEST(shown[1] == "3:NaN");
  BOOST_TEST(shown[2] == "4:-Infinity");
  BOOST_TEST(shown[3] == "3:1e-300");
  BOOST_TEST(shown[4] == "6:\\x00ff");
  BOOST_TEST(shown[5].substr(0, 3) == "13:");
  BOOST_TEST(shown[6] == "5:line\nbreak \u00e9 \"q\"");
  BOOST_TEST(shown[7] == "2:-9223372036854775808");
  BOOST_TEST(shown[8] == "5:5");
}

BOOST_AUTO_TEST_CASE(translates_truncates_and_messages) {
  wal2json_options o;
  o.messages = true;
  session s{o};
  BOOST_TEST_REQUIRE(s.feed(begin_1).has_value());
  BOOST_TEST_REQUIRE(s.feed(R"({"action":"T","xid":700,"schema":"public","table":"gone"})").has_value());
  BOOST_TEST_REQUIRE(s.feed(R"({"action":"M","xid":700,"lsn":"0/1010","transactional":true,"prefix":"p",)"
                            R"("content":"hello"})")
                         .has_value());
  BOOST_TEST_REQUIRE(s.feed(commit_1).has_value());
  BOOST_TEST_REQUIRE(s.feed(R"({"action":"M","xid":null,"timestamp":null,"lsn":"0/2000","transactional":false,)"
                            R"("prefix":"alone","content":"x"})")
                         .has_value());
  BOOST_TEST(s.emitted_types == "BRTMCM");
  const auto& t = s.out.transactions.at(0);
  BOOST_TEST(t.changes.at(0).op == "truncate");
  BOOST_TEST(t.changes.at(0).table == "public.gone");
  BOOST_TEST(t.messages.at(0).prefix == "p");
  BOOST_TEST(t.messages.at(0).content == "hello");
  BOOST_TEST(t.messages.at(0).at == replicant::lsn{0x1010});
  BOOST_TEST(s.out.loose_messages.at(0).prefix == "alone");
  BOOST_TEST(!s.out.loose_messages.at(0).transactional);
}

BOOST_AUTO_TEST_CASE(drops_messages_unread_unless_asked_for) {
  session s;
  const std::string message = std::string{R"({"action":"M","xid":null,"lsn":"0/2000","transactional":false,)"} +
                              R"("prefix":"p","content":")" + "\xff\xfe" + R"("})";
  BOOST_TEST(s.feed(message).has_value());
  BOOST_TEST(s.emitted == 0U);
  wal2json_options o;
  o.messages = true;
  session wants{o};
  BOOST_TEST(wants.feed(message).error() == errc::decode_failure);  // not UTF-8: not JSON
}

BOOST_AUTO_TEST_CASE(describes_every_table_again_after_reset) {
  session s;
  const std::string_view insert =
      R"({"action":"I","xid":700,"schema":"public","table":"t","columns":[{"name":"id","typeoid":23,"value":1}],"pk":[]})";
  BOOST_TEST_REQUIRE(s.feed(begin_1).has_value());
  BOOST_TEST_REQUIRE(s.feed(insert).has_value());
  BOOST_TEST_REQUIRE(s.feed(insert).has_value());
  BOOST_TEST(s.decoder.in_transaction());
  s.decoder.reset();
  s.assembler.reset();
  BOOST_TEST(!s.decoder.in_transaction());
  BOOST_TEST_REQUIRE(s.feed(begin_1).has_value());
  BOOST_TEST_REQUIRE(s.feed(insert).has_value());
  BOOST_TEST_REQUIRE(s.feed(commit_1).has_value());
  BOOST_TEST(s.emitted_types == "BRIIBRIC");
  BOOST_TEST(s.out.schema_changes.empty());  // the same shape and OID again
  BOOST_TEST_REQUIRE(s.decoder.find_relation("public", "t") != nullptr);
  BOOST_TEST(s.decoder.find_relation("public", "t")->oid == 0xFFFF'FFFFU);
  BOOST_TEST(s.decoder.find_relation("public", "other") == nullptr);
}

BOOST_AUTO_TEST_CASE(uses_the_catalog_for_oids_identity_and_columns_an_update_left_out) {
  relation_catalog catalog;
  replicant::relation_info r;
  r.oid = 16384;
  r.schema = "public";
  r.table = "t";
  r.identity = replicant::replica_identity::index;
  r.columns = {{"id", 23, -1, false}, {"code", 1043, 14, true}, {"big", 25, -1, false}};
  if (!catalog.add(r)) BOOST_FAIL("catalog refused");
  session s{{}, catalog};
  BOOST_TEST_REQUIRE(s.feed(begin_1).has_value());
  BOOST_TEST_REQUIRE(
      s.feed(R"({"action":"U","xid":700,"schema":"public","table":"t","columns":[)"
             R"({"name":"id","type":"integer","typeoid":23,"value":1},)"
             R"J({"name":"code","type":"character varying(10)","typeoid":1043,"value":"B"}],)J"
             R"J("identity":[{"name":"code","type":"character varying(10)","typeoid":1043,"value":"A"}],)J"
             R"("pk":[{"name":"id"}]})")
          .has_value());
  BOOST_TEST_REQUIRE(s.feed(commit_1).has_value());
  const auto& c = s.out.transactions.at(0).changes.at(0);
  BOOST_TEST(c.relation_oid == 16384U);
  BOOST_TEST(c.identity == 'i');
  BOOST_TEST(column_names(c) == (std::vector<std::string>{"id", "code", "big"}), boost::test_tools::per_element());
  BOOST_TEST(c.columns[1].key);
  BOOST_TEST(!c.columns[0].key);
  BOOST_TEST(c.unchanged == std::vector<std::string>{"big"}, boost::test_tools::per_element());
  BOOST_TEST(c.old_kind == 'K');
  BOOST_TEST(c.old == (std::vector<field_record>{{"id", "NULL"}, {"code", "5:A"}, {"big", "NULL"}}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(stops_at_the_first_error_the_emitter_returns) {
  wal2json_decoder d;
  std::size_t calls = 0;
  const auto r = d.translate(bytes_of(begin_1), [&](std::span<const std::byte>) -> result<void> {
    ++calls;
    return replicant::fail(errc::sink_failed);
  });
  BOOST_TEST(r.error() == errc::sink_failed);
  BOOST_TEST(calls == 1U);
  // A callable returning nothing is accepted too.
  wal2json_decoder v;
  BOOST_TEST(v.translate(bytes_of(begin_1), [&](std::span<const std::byte>) { ++calls; }).has_value());
  BOOST_TEST(calls == 2U);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(wal2json_decoder_errors)

BOOST_AUTO_TEST_CASE(refuses_what_is_not_wal2json_output_without_echoing_it) {
  constexpr std::string_view marker = "Zq7Vx9";
  const std::string insert_head = R"({"action":"I","xid":700,"schema":"Zq7Vx9","table":"t","columns":[)";
  const std::vector<std::string> malformed = {
      "",
      "Zq7Vx9",
      "[1,2]",
      R"({"action":"Zq7Vx9"})",
      R"({"action":"X"})",
      R"({"action":"B","xid":-1,"timestamp":"2024-02-29 12:00:00+00","lsn":"0/1","nextlsn":"0/2"})",
      R"({"action":"B","xid":700,"timestamp":"Zq7Vx9","lsn":"0/1","nextlsn":"0/2"})",
      R"({"action":"B","xid":700,"timestamp":"2024-02-29 12:00:00+00","lsn":"Zq7Vx9","nextlsn":"0/2"})",
      R"({"action":"B","xid":700,"lsn":"0/1","nextlsn":"0/2"})",
      std::string{begin_1} + " x",
      std::string{begin_1} + std::string{begin_1},
      insert_head + R"({"name":"id","typeoid":23,"value":[1]}]})",
      insert_head + R"({"name":"id","typeoid":23,"value":01}]})",
      insert_head + R"({"name":"id","value":1}]})",
      insert_head + R"({"typeoid":23,"value":1}]})",
      insert_head + R"({"name":"","typeoid":23,"value":1}]})",
      insert_head + R"({"name":"a\u0000b","typeoid":23,"value":1}]})",
      insert_head + R"({"name":"id","typeoid":23,"value":"Zq7Vx9)",
      R"({"action":"I","xid":700,"table":"t","columns":[]})",
      R"({"action":"D","xid":700,"schema":"s","table":"t"})",
      R"({"action":"M","lsn":"0/1","prefix":"p","content":"c"})",
  };
  for (std::size_t i = 0; i < malformed.size(); ++i) {
    BOOST_TEST_CONTEXT("input " << i) {
      wal2json_options o;
      o.messages = true;
      session s{o};
      if (i >= 11) BOOST_TEST_REQUIRE(s.feed(begin_1).has_value());
      const auto r = s.feed(malformed[i]);
      BOOST_TEST_REQUIRE(!r.has_value());
      BOOST_TEST(r.error() == errc::decode_failure);
      BOOST_TEST(r.error().message().find(marker) == std::string::npos);
    }
  }
}

// A numeric or bytea value without its type's shape is corrupt: translate() refuses the row, so
// nothing of it reaches the assembler, and the error never repeats the value. wal2json prints
// bytea without its `\x`, numbers as numbers (or, with numeric-data-types-as-string, strings).
BOOST_AUTO_TEST_CASE(refuses_numeric_and_bytea_values_without_their_shape) {
  constexpr std::string_view marker = "s3cr3t";
  const auto insert = [](std::string_view amount, std::string_view blob) {
    return std::string{R"({"action":"I","xid":700,"schema":"public","table":"v","columns":[)"} +
           R"({"name":"id","type":"integer","typeoid":23,"value":1},)" +
           R"({"name":"n","type":"numeric","typeoid":1700,"value":)" + std::string{amount} + "}," +
           R"({"name":"x","type":"bytea","typeoid":17,"value":)" + std::string{blob} + "}," +
           R"({"name":"a","type":"numeric[]","typeoid":1231,"value":"{1.5,NaN}"}],"pk":[{"name":"id","type":"integer"}]})";
  };
  const std::vector<std::pair<std::string, std::string>> good{
      {"-12.50", R"("00ffAB")"}, {R"("NaN")", R"("")"}, {R"("-Infinity")", "null"}, {"null", R"("0a")"}};
  for (const auto& [amount, blob] : good) {
    session s;
    BOOST_TEST_REQUIRE(s.feed(begin_1).has_value());
    BOOST_TEST(s.feed(insert(amount, blob)).has_value(), amount << " " << blob);
  }
  const std::vector<std::pair<std::string, std::string>> bad{
      {R"("s3cr3t-12")", R"("00")"},
      {"1e5", R"("00")"},
      {R"("1.")", R"("00")"},
      {"true", R"("00")"},
      {"1", R"("s3cr3t")"},
      {"1", R"("0")"},
      {"1", R"("\x00")"},
      {"1", "12"},
      {"1", "false"},
  };
  for (const auto& [amount, blob] : bad) {
    BOOST_TEST_CONTEXT(amount << " " << blob) {
      session s;
      BOOST_TEST_REQUIRE(s.feed(begin_1).has_value());
      const std::size_t before = s.emitted;
      const auto r = s.feed(insert(amount, blob));
      BOOST_TEST_REQUIRE(!r.has_value());
      BOOST_TEST(r.error() == errc::decode_failure);
      BOOST_TEST(r.error().message().find(marker) == std::string::npos);
      BOOST_TEST(s.emitted == before, "nothing of the row was emitted");
    }
  }
  // An update's old key and a delete's identity are checked alike.
  session s;
  BOOST_TEST_REQUIRE(s.feed(begin_1).has_value());
  const auto r =
      s.feed(R"({"action":"D","xid":700,"schema":"public","table":"v","identity":[)"
             R"({"name":"n","type":"numeric","typeoid":1700,"value":"s3cr3t"}],"pk":[{"name":"n","type":"numeric"}]})");
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST(r.error() == errc::decode_failure);
}

BOOST_AUTO_TEST_CASE(refuses_a_column_list_no_table_can_have) {
  // Found by fuzzing: a description with a name twice would be refused by the pgoutput decoder, so
  // the translation must refuse it first (and emit nothing).
  session s;
  BOOST_TEST_REQUIRE(s.feed(begin_1).has_value());
  const auto r = s.feed(R"({"action":"I","xid":700,"schema":"public","table":"t","columns":[)"
                        R"({"name":"id","typeoid":23,"value":1},{"name":"id","typeoid":25,"value":"x"}]})");
  BOOST_TEST(r.error() == errc::decode_failure);
  BOOST_TEST(s.emitted_types == "B");
  BOOST_TEST(s.decoder.find_relation("public", "t") == nullptr);
}

BOOST_AUTO_TEST_CASE(halts_on_a_commit_without_its_lsn) {
  wal2json_decoder d;
  const auto no_lsn = d.translate(bytes_of(R"({"action":"B","xid":1,"timestamp":"2024-02-29 12:00:00+00"})"),
                                  [](std::span<const std::byte>) {});
  BOOST_TEST(no_lsn.error() == replicant::errc::lsn_missing);
  BOOST_TEST_REQUIRE(d.translate(bytes_of(begin_1), [](std::span<const std::byte>) {}).has_value());
  const auto no_end =
      d.translate(bytes_of(R"({"action":"C","xid":700,"timestamp":"2024-02-29 12:00:00.5+00","lsn":"0/1000"})"),
                  [](std::span<const std::byte>) {});
  BOOST_TEST(no_end.error() == replicant::errc::lsn_missing);
}

BOOST_AUTO_TEST_CASE(refuses_objects_out_of_place) {
  const std::string_view insert =
      R"({"action":"I","xid":700,"schema":"public","table":"t","columns":[{"name":"id","typeoid":23,"value":1}]})";
  const std::string_view message = R"({"action":"M","lsn":"0/1","transactional":true,"prefix":"p","content":"c"})";
  wal2json_options o;
  o.messages = true;
  for (const std::string_view bad :
       {insert, commit_1, message, std::string_view{R"({"action":"T","xid":700,"schema":"s","table":"t"})"}}) {
    wal2json_decoder d{o};
    BOOST_TEST(d.translate(bytes_of(bad), [](std::span<const std::byte>) {}).error() == errc::protocol_violation);
  }
  wal2json_decoder d;
  BOOST_TEST_REQUIRE(d.translate(bytes_of(begin_1), [](std::span<const std::byte>) {}).has_value());
  BOOST_TEST(d.translate(bytes_of(begin_1), [](std::span<const std::byte>) {}).error() == errc::protocol_violation);
  // A Commit at another LSN than its Begin announced (found by fuzzing against the assembler).
  wal2json_decoder moved;
  BOOST_TEST_REQUIRE(moved.translate(bytes_of(begin_1), [](std::span<const std::byte>) {}).has_value());
  const auto elsewhere = moved.translate(
      bytes_of(R"({"action":"C","xid":700,"timestamp":"2024-02-29 12:00:00.5+00","lsn":"0/1008","nextlsn":"0/1030"})"),
      [](std::span<const std::byte>) {});
  BOOST_TEST(elsewhere.error() == errc::protocol_violation);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // decoder_wal2json_tests
