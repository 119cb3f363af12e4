// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The decoder policy of the replication pipeline (replicant::decoder_policy), without a server:
// the three decoders model it; pgoutput's START options are what the pipeline always sent; the
// translating decoders' connect-time checks and wal2json's periodic catalog check, fed with
// catalog rows as the server would return them; and every option a decoder cannot serve refused
// before the pipeline connects.
#include <replicant/decoder/policy.hpp>

#include <boost/test/unit_test.hpp>

#include <replicant/assembler/assembler.hpp>
#include <replicant/decoder/pglogical.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/decoder/wal2json.hpp>
#include <replicant/pipeline.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

BOOST_AUTO_TEST_SUITE(decoder_policy_tests)

using replicant::halt_reason;

static_assert(replicant::decoder_policy<replicant::pgoutput_decoder>);
static_assert(replicant::decoder_policy<replicant::wal2json_decoder>);
static_assert(replicant::decoder_policy<replicant::pglogical_decoder>);
static_assert(!replicant::decoder_policy<replicant::pgoutput_protocol>);
static_assert(!replicant::decoder_policy<replicant::wal2json_options>);
static_assert(replicant::detail::is_decoder_options<replicant::wal2json_options>);
static_assert(replicant::detail::is_decoder_options<replicant::pglogical_options>);
static_assert(!replicant::detail::is_decoder_options<replicant::pipeline_options>);
// The translating decoders check the catalog while streaming: wal2json on a timer, pglogical when a
// table is described again.
static_assert(replicant::detail::has_recheck<replicant::wal2json_decoder>);
static_assert(replicant::detail::has_recheck<replicant::pglogical_decoder>);
static_assert(!replicant::detail::has_recheck<replicant::pgoutput_decoder>);

namespace {

// Answers a decoder's queries from canned rows: the first registered fragment the SQL contains
// picks the rows. Counts the queries, and fails those it has no answer for.
struct fake_server {
  std::vector<std::pair<std::string, std::vector<std::vector<std::string>>>> answers;
  std::vector<std::string> asked;

  auto query() -> replicant::query_function {
    return [this](const std::string& sql,
                  const std::function<void(replicant::query_row)>& visit) -> replicant::result<void> {
      asked.push_back(sql);
      for (const auto& [fragment, rows] : answers) {
        if (sql.find(fragment) == std::string::npos) continue;
        for (const auto& row : rows) {
          std::vector<std::string_view> fields(row.begin(), row.end());
          visit(fields);
        }
        return {};
      }
      return replicant::fail(replicant::errc::server_error);
    };
  }
};

// relation_catalog rows: oid, schema, table, relreplident, attname, atttypid, atttypmod, is_key.
auto catalog_rows(bool keyed, bool with_note) -> std::vector<std::vector<std::string>> {
  std::vector<std::vector<std::string>> rows = {
      {"16400", "public", "items", "d", "id", "23", "-1", keyed ? "t" : "f"},
      {"16400", "public", "items", "d", "label", "25", "-1", "f"},
  };
  if (with_note) rows.push_back({"16400", "public", "items", "d", "note", "25", "-1", "f"});
  return rows;
}

auto base_options() -> replicant::pipeline_options {
  replicant::pipeline_options o;
  // Nothing listens there: every test below must be refused before the pipeline connects.
  o.conninfo = "host=127.0.0.1 port=1 dbname=nowhere connect_timeout=1";
  o.slot = "policy_slot";
  o.start = replicant::start::go_forward{};
  return o;
}

struct plain_sink {
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::nullopt; }
  auto handle_transaction(const replicant::transaction& t) -> replicant::result<replicant::lsn> {
    return t.commit_lsn();
  }
};

template <class Decoder>
using pipeline_of = replicant::pipeline<Decoder, replicant::sink_owned_checkpoint, replicant::no_spill, plain_sink>;

template <class Decoder, class... DecoderArgs>
auto refusal(const replicant::pipeline_options& o, DecoderArgs&&... decoder) -> halt_reason {
  plain_sink sink;
  pipeline_of<Decoder> p{sink, std::forward<DecoderArgs>(decoder)..., o};
  std::error_code ec;
  p.run(ec);
  // A refusal is a halt: run(ec) says that it stopped, the halt says why (no reason otherwise).
  return ec == replicant::errc::halted && p.last_halt() ? p.last_halt()->reason : halt_reason{};
}

auto wal2json_items() -> replicant::wal2json_options {
  replicant::wal2json_options w;
  w.tables = {{"public", "items"}};
  return w;
}

auto pglogical_default() -> replicant::pglogical_options {
  replicant::pglogical_options g;
  g.replication_sets = {"default"};
  return g;
}

// Collects what the assembler reports.
struct collecting_handler {
  std::vector<replicant::schema_change> schema_changes;
  auto operator()(replicant::transaction&&) -> replicant::result<void> { return {}; }
  auto operator()(const replicant::logical_message&) -> replicant::result<void> { return {}; }
  auto operator()(const replicant::schema_change& c) -> replicant::result<void> {
    schema_changes.push_back(c);
    return {};
  }
  auto operator()(const replicant::empty_commit&) -> replicant::result<void> { return {}; }
  auto operator()(const replicant::prepared_event&) -> replicant::result<void> { return {}; }
  auto operator()(const replicant::rollback_prepared_event&) -> replicant::result<void> { return {}; }
  auto operator()(const replicant::stream_abort_event&) -> replicant::result<void> { return {}; }
};

auto bytes(std::string_view s) -> std::span<const std::byte> { return std::as_bytes(std::span{s.data(), s.size()}); }

}  // namespace

BOOST_AUTO_TEST_SUITE(decoder_capabilities)

BOOST_AUTO_TEST_CASE(says_what_each_plugin_can_express) {
  constexpr auto p = replicant::pgoutput_decoder::capabilities;
  constexpr auto w = replicant::wal2json_decoder::capabilities;
  constexpr auto g = replicant::pglogical_decoder::capabilities;
  BOOST_TEST((p.publications && p.streaming && p.two_phase && p.messages && p.origin_filter && p.failover && p.binary &&
              p.protocol_version && p.snapshot && !p.catalog));
  BOOST_TEST((!w.publications && !w.streaming && !w.two_phase && w.messages && !w.origin_filter && !w.failover &&
              !w.binary && !w.protocol_version && !w.snapshot && w.catalog));
  BOOST_TEST((!g.publications && !g.streaming && !g.two_phase && !g.messages && !g.origin_filter && !g.failover &&
              !g.binary && !g.protocol_version && !g.snapshot && g.catalog));
  BOOST_TEST(replicant::pgoutput_decoder::plugin_name == "pgoutput");
  BOOST_TEST(replicant::wal2json_decoder::plugin_name == "wal2json");
  BOOST_TEST(replicant::pglogical_decoder::plugin_name == "pglogical_output");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(pgoutput_decoder_as_policy)

BOOST_AUTO_TEST_CASE(negotiates_the_start_options_the_pipeline_always_sent) {
  replicant::pgoutput_options o{.publications = {"pub", "Other"}};
  auto on15 = replicant::pgoutput_decoder{o}.negotiate({150018});
  BOOST_TEST_REQUIRE(on15.has_value());
  BOOST_TEST(on15->options == "proto_version '3', publication_names '\"pub\",\"Other\"'");
  BOOST_TEST(on15->protocol.version == 3U);
  BOOST_TEST((on15->protocol.streaming == replicant::pgoutput_streaming::off));
  BOOST_TEST(!on15->fallback_options.has_value());

  o.messages = true;
  o.streaming = true;
  o.two_phase = true;
  o.origin = replicant::origin_filter::none;
  o.binary = true;
  auto on16 = replicant::pgoutput_decoder{o}.negotiate({160002});
  BOOST_TEST_REQUIRE(on16.has_value());
  BOOST_TEST(on16->options ==
             "proto_version '4', publication_names '\"pub\",\"Other\"', messages 'true', streaming 'parallel', "
             "two_phase 'on', origin 'none', binary 'true'");
  BOOST_TEST((on16->protocol.streaming == replicant::pgoutput_streaming::parallel));
  auto streamed15 = replicant::pgoutput_decoder{o}.negotiate({150018});
  BOOST_TEST_REQUIRE(streamed15.has_value());
  BOOST_TEST((streamed15->protocol.streaming == replicant::pgoutput_streaming::on));
  BOOST_TEST(streamed15->options.find("streaming 'on'") != std::string::npos);
  o.protocol_version = 2;
  o.two_phase = false;
  auto asked = replicant::pgoutput_decoder{o}.negotiate({170000});
  BOOST_TEST_REQUIRE(asked.has_value());
  BOOST_TEST(asked->protocol.version == 2U);
  BOOST_TEST((asked->protocol.streaming == replicant::pgoutput_streaming::on));
}

BOOST_AUTO_TEST_CASE(validates_its_options_and_reports_them_as_plugin_settings) {
  const auto checked = [](replicant::pgoutput_options o) {
    return replicant::pgoutput_decoder{std::move(o)}.validate();
  };
  BOOST_TEST(checked({.publications = {"pub"}}).has_value());
  BOOST_TEST((checked({}).error().reason == halt_reason::config_invalid));
  BOOST_TEST((checked({.publications = {"Not Plain"}}).error().reason == halt_reason::invalid_identifier));
  BOOST_TEST((checked({.publications = {"pub"}, .protocol_version = 5}).error().reason == halt_reason::config_invalid));
  BOOST_TEST((checked({.publications = {"pub"}, .protocol_version = 1, .streaming = true}).error().reason ==
              halt_reason::config_invalid));
  BOOST_TEST((checked({.publications = {"pub"}, .protocol_version = 2, .two_phase = true}).error().reason ==
              halt_reason::config_invalid));
  BOOST_TEST(
      checked({.publications = {"pub"}, .protocol_version = 3, .streaming = true, .two_phase = true}).has_value());

  const replicant::pgoutput_decoder d{replicant::pgoutput_options{.publications = {"pub"}, .messages = true}};
  const auto settings = d.settings();
  BOOST_TEST_REQUIRE(settings.publications.size() == 1U);
  BOOST_TEST(settings.publications[0] == "pub");
  BOOST_TEST(settings.messages);
  BOOST_TEST(!settings.streaming);
}

BOOST_AUTO_TEST_CASE(translates_by_handing_the_payload_over_unchanged) {
  const replicant::pgoutput_decoder d{};
  const std::array<std::byte, 3> payload{std::byte{'B'}, std::byte{1}, std::byte{2}};
  std::vector<std::span<const std::byte>> seen;
  auto r = d.translate(payload, [&](std::span<const std::byte> m) { seen.push_back(m); });
  BOOST_TEST(r.has_value());
  BOOST_TEST_REQUIRE(seen.size() == 1U);
  BOOST_TEST(seen[0].data() == payload.data());  // the same bytes, not a copy
  BOOST_TEST(seen[0].size() == payload.size());
  auto refused = d.translate(payload, [](std::span<const std::byte>) -> replicant::result<void> {
    return replicant::fail(replicant::errc::sink_failed);
  });
  BOOST_TEST((refused.error() == replicant::errc::sink_failed));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(wal2json_decoder_as_policy)

BOOST_AUTO_TEST_CASE(falls_back_without_the_option_older_builds_refuse) {
  auto w = wal2json_items();
  w.allow_special_numbers_as_null = true;  // the lossy mode asks for nothing it could be refused
  auto plain = replicant::wal2json_decoder{w}.negotiate({150018});
  BOOST_TEST_REQUIRE(plain.has_value());
  BOOST_TEST(!plain->fallback_options.has_value());
  BOOST_TEST(plain->options.find("numeric-data-types-as-string") == std::string::npos);
  BOOST_TEST((plain->protocol.streaming == replicant::pgoutput_streaming::off));
  w.allow_special_numbers_as_null = false;  // the default
  auto asking = replicant::wal2json_decoder{w}.negotiate({150018});
  BOOST_TEST_REQUIRE(asking.has_value());
  BOOST_TEST(asking->options.find("\"numeric-data-types-as-string\" '1'") != std::string::npos);
  BOOST_TEST_REQUIRE(asking->fallback_options.has_value());
  BOOST_TEST(*asking->fallback_options == plain->options);
}

BOOST_AUTO_TEST_CASE(prepare_reads_the_catalog_and_checks_every_table) {
  fake_server server;
  server.answers.push_back({"pg_catalog.pg_attribute", catalog_rows(true, false)});
  replicant::wal2json_decoder d{wal2json_items()};
  auto ok = d.prepare(server.query());
  BOOST_TEST_REQUIRE(ok.has_value());
  BOOST_TEST(!ok->has_value());
  BOOST_TEST_REQUIRE(d.catalog().find("public", "items") != nullptr);
  BOOST_TEST(d.catalog().find("public", "items")->oid == 16400U);
  BOOST_TEST(server.asked.size() == 1U);

  // A table that is not there: wal2json would match nothing and stream nothing.
  auto w = wal2json_items();
  w.tables.push_back({"public", "gone"});
  replicant::wal2json_decoder missing{w};
  auto halted = missing.prepare(server.query());
  BOOST_TEST_REQUIRE(halted.has_value());
  BOOST_TEST_REQUIRE(halted->has_value());
  BOOST_TEST(((*halted)->reason == halt_reason::decoder_table_missing));
  BOOST_TEST(((*halted)->table == replicant::table_name{"public", "gone"}));

  // A failed query is not a halt: the pipeline reconnects.
  fake_server down;
  auto failed = replicant::wal2json_decoder{wal2json_items()}.prepare(down.query());
  BOOST_TEST(!failed.has_value());
}

BOOST_AUTO_TEST_CASE(prepare_refuses_a_keyless_table_unless_declared_insert_only) {
  fake_server server;
  server.answers.push_back({"pg_catalog.pg_attribute", catalog_rows(false, false)});
  auto halted = replicant::wal2json_decoder{wal2json_items()}.prepare(server.query());
  BOOST_TEST_REQUIRE(halted.has_value());
  BOOST_TEST_REQUIRE(halted->has_value());
  BOOST_TEST(((*halted)->reason == halt_reason::table_keyless));
  BOOST_TEST(((*halted)->table == replicant::table_name{"public", "items"}));

  auto w = wal2json_items();
  w.allow_keyless_tables = true;
  auto allowed = replicant::wal2json_decoder{w}.prepare(server.query());
  BOOST_TEST_REQUIRE(allowed.has_value());
  BOOST_TEST(!allowed->has_value());

  // REPLICA IDENTITY FULL needs no key.
  fake_server full;
  auto rows = catalog_rows(false, false);
  for (auto& r : rows) {
    r[3] = "f";
    r[7] = "t";
  }
  full.answers.push_back({"pg_catalog.pg_attribute", rows});
  auto ok = replicant::wal2json_decoder{wal2json_items()}.prepare(full.query());
  BOOST_TEST_REQUIRE(ok.has_value());
  BOOST_TEST(!ok->has_value());
}

BOOST_AUTO_TEST_CASE(recheck_describes_again_a_table_that_lost_a_column) {
  fake_server before;
  before.answers.push_back({"pg_catalog.pg_attribute", catalog_rows(true, true)});
  auto w = wal2json_items();
  w.schema_check_interval = std::chrono::milliseconds(250);
  replicant::wal2json_decoder d{w};
  BOOST_TEST_REQUIRE(d.prepare(before.query()).has_value());
  BOOST_TEST(d.recheck_interval() == std::chrono::milliseconds(250));

  replicant::assembler a;
  collecting_handler h;
  const auto to_assembler = [&](std::span<const std::byte> m) { return a.push(m, h); };
  const std::string begin =
      R"({"action":"B","xid":700,"timestamp":"2026-01-01 00:00:00+00","lsn":"0/1000","nextlsn":"0/1100"})";
  const std::string update =
      R"({"action":"U","xid":700,"timestamp":"2026-01-01 00:00:00+00","lsn":"0/1000","schema":"public","table":"items",)"
      R"("columns":[{"name":"id","type":"integer","typeoid":23,"value":1},{"name":"label","type":"text","typeoid":25,"value":"x"}],)"
      R"("identity":[{"name":"id","type":"integer","typeoid":23,"value":1}],"pk":[{"name":"id","type":"integer","typeoid":23}]})";
  const std::string commit =
      R"({"action":"C","xid":700,"timestamp":"2026-01-01 00:00:00+00","lsn":"0/1000","nextlsn":"0/1100"})";
  for (const auto& payload : {begin, update, commit})
    BOOST_TEST_REQUIRE(d.translate(bytes(payload), to_assembler).has_value());
  // The UPDATE left `note` out: unchanged TOAST as far as wal2json's output can tell.
  BOOST_TEST_REQUIRE(d.find_relation("public", "items") != nullptr);
  BOOST_TEST(d.find_relation("public", "items")->columns.size() == 3U);
  BOOST_TEST(h.schema_changes.empty());

  // Same catalog: nothing to say.
  auto same = d.recheck(before.query(), to_assembler);
  BOOST_TEST_REQUIRE(same.has_value());
  BOOST_TEST(!same->has_value());
  BOOST_TEST(h.schema_changes.empty());

  // `note` dropped: described again without it, a destructive change, once.
  fake_server after;
  after.answers.push_back({"pg_catalog.pg_attribute", catalog_rows(true, false)});
  auto dropped = d.recheck(after.query(), to_assembler);
  BOOST_TEST_REQUIRE(dropped.has_value());
  BOOST_TEST(!dropped->has_value());
  BOOST_TEST_REQUIRE(h.schema_changes.size() == 1U);
  BOOST_TEST((h.schema_changes[0].kind == replicant::schema_change_kind::destructive));
  BOOST_TEST(h.schema_changes[0].table == "items");
  BOOST_TEST(d.find_relation("public", "items")->columns.size() == 2U);
  BOOST_TEST_REQUIRE(d.recheck(after.query(), to_assembler).has_value());
  BOOST_TEST(h.schema_changes.size() == 1U);

  // The table dropped altogether: halts as at connect.
  fake_server empty;
  empty.answers.push_back({"pg_catalog.pg_attribute", {}});
  auto gone = d.recheck(empty.query(), to_assembler);
  BOOST_TEST_REQUIRE(gone.has_value());
  BOOST_TEST_REQUIRE(gone->has_value());
  BOOST_TEST(((*gone)->reason == halt_reason::decoder_table_missing));
}

BOOST_AUTO_TEST_CASE(tells_the_pipeline_whether_it_delivers_messages) {
  auto w = wal2json_items();
  BOOST_TEST(!replicant::wal2json_decoder{w}.settings().messages);
  w.messages = true;
  replicant::wal2json_decoder d{w};
  BOOST_TEST(d.settings().messages);
  d.begin_session({150018});  // a session keeps the options
  BOOST_TEST(d.settings().messages);
  BOOST_TEST(d.settings().publications.empty());
  BOOST_TEST(!replicant::pglogical_decoder{pglogical_default()}.settings().messages);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(pglogical_decoder_as_policy)

BOOST_AUTO_TEST_CASE(prepare_checks_library_extension_node_and_sets) {
  const auto ready = std::vector<std::vector<std::string>>{{"t"}};
  const auto one_node = std::vector<std::vector<std::string>>{{"1"}};
  const auto sets = std::vector<std::vector<std::string>>{{"default"}};

  fake_server unprepared;
  unprepared.answers.push_back({"shared_preload_libraries", {{"f"}}});
  auto not_loaded = replicant::pglogical_decoder{pglogical_default()}.prepare(unprepared.query());
  BOOST_TEST_REQUIRE(not_loaded.has_value());
  BOOST_TEST_REQUIRE(not_loaded->has_value());
  BOOST_TEST(((*not_loaded)->reason == halt_reason::decoder_unsupported_on_server));

  fake_server no_node;
  no_node.answers.push_back({"shared_preload_libraries", ready});
  no_node.answers.push_back({"count(*) FROM pglogical.local_node", {{"0"}}});
  auto nodeless = replicant::pglogical_decoder{pglogical_default()}.prepare(no_node.query());
  BOOST_TEST_REQUIRE(nodeless.has_value());
  BOOST_TEST_REQUIRE(nodeless->has_value());
  BOOST_TEST(((*nodeless)->reason == halt_reason::decoder_unsupported_on_server));

  fake_server server;
  server.answers.push_back({"shared_preload_libraries", ready});
  server.answers.push_back({"count(*) FROM pglogical.local_node", one_node});
  server.answers.push_back({"SELECT s.set_name", sets});
  server.answers.push_back({"pg_catalog.pg_attribute", catalog_rows(true, false)});
  replicant::pglogical_decoder d{pglogical_default()};
  auto ok = d.prepare(server.query());
  BOOST_TEST_REQUIRE(ok.has_value());
  BOOST_TEST(!ok->has_value());
  BOOST_TEST(d.catalog().find(16400) != nullptr);

  auto g = pglogical_default();
  g.replication_sets.push_back("nosuch");
  auto missing = replicant::pglogical_decoder{g}.prepare(server.query());
  BOOST_TEST_REQUIRE(missing.has_value());
  BOOST_TEST_REQUIRE(missing->has_value());
  BOOST_TEST(((*missing)->reason == halt_reason::publication_missing));
}

BOOST_AUTO_TEST_CASE(negotiates_its_start_options_without_fallback) {
  const replicant::pglogical_decoder d{pglogical_default()};
  auto r = d.negotiate({150018});
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST(r->options == d.start_options().value());
  BOOST_TEST(!r->fallback_options.has_value());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(pipeline_with_a_translating_decoder)

BOOST_AUTO_TEST_CASE(refuses_every_option_the_decoder_cannot_serve_before_connecting) {
  const auto w = wal2json_items();
  const auto g = pglogical_default();
  const auto with = [](auto change) {
    auto o = base_options();
    change(o);
    return o;
  };
  const auto capability = halt_reason::decoder_capability_unsupported;
  // What the plugins cannot do is no member of their options; what the pipeline's own options ask
  // of the plugin is refused before connecting.
  BOOST_TEST((refusal<replicant::wal2json_decoder>(with([](auto& o) { o.failover = true; }), w) == capability));
  BOOST_TEST((refusal<replicant::pglogical_decoder>(with([](auto& o) { o.failover = true; }), g) == capability));
  BOOST_TEST(
      (refusal<replicant::wal2json_decoder>(with([](auto& o) { o.start = replicant::start::point_in_time_snapshot{}; }),
                                            w) == halt_reason::snapshot_unsupported));
  BOOST_TEST(
      (refusal<replicant::pglogical_decoder>(with([](auto& o) { o.start = replicant::start::incremental_snapshot{}; }),
                                             g) == halt_reason::snapshot_unsupported));
  BOOST_TEST((refusal<replicant::wal2json_decoder>(base_options(), replicant::wal2json_options{}) ==
              halt_reason::config_invalid));
  BOOST_TEST((refusal<replicant::pglogical_decoder>(base_options(), replicant::pglogical_options{}) ==
              halt_reason::config_invalid));
  auto bad_table = w;
  bad_table.tables.push_back({"public", "Not Plain"});
  BOOST_TEST((refusal<replicant::wal2json_decoder>(base_options(), bad_table) == halt_reason::invalid_identifier));
  auto bad_set = g;
  bad_set.replication_sets = {"no;such"};
  BOOST_TEST((refusal<replicant::pglogical_decoder>(base_options(), bad_set) == halt_reason::invalid_identifier));
  // The pipeline's other options are checked as for pgoutput.
  BOOST_TEST((refusal<replicant::wal2json_decoder>(with([](auto& o) { o.slot = "Bad Slot"; }), w) ==
              halt_reason::invalid_identifier));
  // And a pgoutput pipeline still needs its publications.
  BOOST_TEST((refusal<replicant::pgoutput_decoder>(base_options(), replicant::pgoutput_options{}) ==
              halt_reason::config_invalid));
  // Binary values cannot be reconciled by the incremental snapshot.
  BOOST_TEST(
      (refusal<replicant::pgoutput_decoder>(with([](auto& o) { o.start = replicant::start::incremental_snapshot{}; }),
                                            replicant::pgoutput_options{.publications = {"pub"}, .binary = true}) ==
       halt_reason::config_invalid));
}

// A refusal before connecting is a halt like any other: a start rejection reaches telemetry as
// `connection.disconnected` with its reason, which is what an operator alerts on.
BOOST_AUTO_TEST_CASE(a_capability_refusal_is_reported_as_a_disconnection) {
  std::vector<std::string> said;
  replicant::telemetry::dispatcher events;
  static_cast<void>(events.attach(
      [&said](const replicant::telemetry::event_record& e) { said.push_back(replicant::telemetry::to_string(e)); }));
  auto o = base_options();
  o.failover = true;  // no wal2json slot can be a failover slot (the decoder says so)
  plain_sink sink;
  pipeline_of<replicant::wal2json_decoder> p{sink, wal2json_items(), o, &events};
  std::error_code ec;
  p.run(ec);
  BOOST_TEST(ec == replicant::errc::halted);
  BOOST_TEST_REQUIRE(p.last_halt().has_value());
  BOOST_TEST(p.last_halt()->reason == halt_reason::decoder_capability_unsupported);
  BOOST_TEST(std::count(said.begin(), said.end(),
                        "replicant.connection.disconnected reason=decoder_capability_unsupported") == 1);
}

// Each decoder's options hold only what its plugin can do.
template <class Options>
concept names_streaming = requires(Options o) { o.streaming; };
template <class Options>
concept names_messages = requires(Options o) { o.messages; };
static_assert(names_streaming<replicant::pgoutput_options> && names_messages<replicant::pgoutput_options>);
static_assert(!names_streaming<replicant::wal2json_options> && names_messages<replicant::wal2json_options>);
static_assert(!names_streaming<replicant::pglogical_options> && !names_messages<replicant::pglogical_options>);
static_assert(replicant::detail::is_decoder_options<replicant::pgoutput_options>);

BOOST_AUTO_TEST_CASE(takes_the_decoder_or_its_options) {
  // Every form constructs; nothing runs.
  plain_sink sink;
  const auto o = base_options();
  pipeline_of<replicant::wal2json_decoder> from_options{sink, wal2json_items(), o};
  pipeline_of<replicant::wal2json_decoder> from_decoder{sink, replicant::wal2json_decoder{wal2json_items()}, o};
  pipeline_of<replicant::pglogical_decoder> from_sets{sink, pglogical_default(), o};
  pipeline_of<replicant::pgoutput_decoder> pgoutput{sink, replicant::pgoutput_options{.publications = {"pub"}}, o};
  pipeline_of<replicant::pgoutput_decoder> with_policy{sink, replicant::pgoutput_options{.publications = {"pub"}},
                                                       replicant::sink_owned_checkpoint{}, o};
  BOOST_TEST(!from_options.last_halt().has_value());
  BOOST_TEST(!from_decoder.last_halt().has_value());
  BOOST_TEST(!from_sets.last_halt().has_value());
  BOOST_TEST(!pgoutput.last_halt().has_value());
  BOOST_TEST(!with_policy.last_halt().has_value());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // decoder_policy_tests
