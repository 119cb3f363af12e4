// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#include <replicant/assembler/assembler.hpp>

#include <boost/test/unit_test.hpp>

#include "support/wire/pgoutput_builder.hpp"

#include <boost/hana/adapt_struct.hpp>
#include <boost/hana/define_struct.hpp>

#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <variant>
#include <vector>

BOOST_AUTO_TEST_SUITE(assembler_assembler_tests)

namespace pg = replicant::test;
using replicant::change_op;
using replicant::errc;
using replicant::lsn;
using replicant::result;

namespace {

constexpr std::uint32_t orders = 16384;
constexpr std::uint32_t int4 = 23;
constexpr std::uint32_t text = 25;

auto orders_relation(std::optional<std::uint32_t> xid = std::nullopt) -> pg::bytes {
  return pg::relation(xid, orders, "public", "orders", 'd',
                      {{"id", int4, -1, true}, {"customer", text, -1, false}, {"note", text, -1, false}});
}

// Records everything the assembler reports; transactions are kept whole.
struct recorder {
  std::vector<replicant::transaction> transactions;
  std::vector<std::string> events;

  auto operator()(replicant::transaction&& t) -> result<void> {
    events.push_back("txn");
    transactions.push_back(std::move(t));
    return {};
  }
  auto operator()(const replicant::logical_message& m) -> result<void> {
    events.push_back("message:" + std::string{m.prefix});
    return {};
  }
  auto operator()(const replicant::schema_change& c) -> result<void> {
    events.push_back(std::string{"schema:"} +
                     (c.kind == replicant::schema_change_kind::destructive ? "destructive" : "additive"));
    return {};
  }
  auto operator()(const replicant::empty_commit& e) -> result<void> {
    events.push_back("empty:" + replicant::to_string(e.end_lsn));
    return {};
  }
  auto operator()(const replicant::prepared_event& p) -> result<void> {
    events.push_back("prepared:" + std::string{p.gid});
    return {};
  }
  auto operator()(const replicant::rollback_prepared_event& r) -> result<void> {
    events.push_back("rolled_back:" + std::to_string(r.xid));
    return {};
  }
  auto operator()(const replicant::stream_abort_event& a) -> result<void> {
    events.push_back("abort:" + std::to_string(a.subxid) + ":" + std::to_string(a.dropped_changes));
    return {};
  }
};

// Pushes each message from a buffer that is overwritten right after, proving that the assembler
// keeps its own copy of whatever it delivers later.
auto feed(replicant::assembler& a, recorder& r, const std::vector<pg::bytes>& messages) -> result<void> {
  pg::bytes scratch;
  for (const auto& m : messages) {
    scratch = m;
    if (auto pushed = a.push(scratch, r); !pushed) return pushed;
    std::fill(scratch.begin(), scratch.end(), std::byte{0xEE});
  }
  return {};
}

auto text_of(const replicant::row& row, std::string_view column) -> std::string {
  auto v = row.value(column);
  BOOST_TEST_REQUIRE(v.has_value());
  if (v->is_null()) return "<null>";
  if (const auto* t = v->get_if<replicant::text>()) return std::string{t->view()};
  if (const auto* i = v->get_if<std::int64_t>()) return std::to_string(*i);
  return "<other>";
}

struct order {
  BOOST_HANA_DEFINE_STRUCT(order, (std::int32_t, id), (std::string, customer), (std::optional<std::string>, note));
};

struct order_with_missing_column {
  BOOST_HANA_DEFINE_STRUCT(order_with_missing_column, (std::int32_t, id), (std::string, region));
};

struct order_with_wrong_type {
  BOOST_HANA_DEFINE_STRUCT(order_with_wrong_type, (std::int32_t, id), (std::int64_t, customer));
};

// Adapted from outside, as a type the user does not own would be.
struct order_key {
  std::int32_t id = 0;
};

}  // namespace

// Hana adapts a struct from the global namespace only.
BOOST_AUTO_TEST_SUITE_END()
BOOST_HANA_ADAPT_STRUCT(assembler_assembler_tests::order_key, id);
BOOST_AUTO_TEST_SUITE(assembler_assembler_tests)

BOOST_AUTO_TEST_SUITE(assembler)

BOOST_AUTO_TEST_CASE(delivers_a_committed_transaction_with_ordered_changes) {
  replicant::assembler a;
  recorder r;
  const auto ok = feed(
      a, r,
      {pg::begin(lsn{0x500}, 0, 700), orders_relation(),
       pg::insert(std::nullopt, orders, {pg::col::text("1"), pg::col::text("ada"), pg::col::null()}),
       pg::update(std::nullopt, orders, 0, {}, {pg::col::text("1"), pg::col::text("ada l."), pg::col::unchanged()}),
       pg::remove(std::nullopt, orders, 'K', {pg::col::text("2"), pg::col::null(), pg::col::null()}),
       pg::commit(lsn{0x500}, lsn{0x530}, 0)});
  BOOST_TEST_REQUIRE(ok.has_value());
  BOOST_TEST_REQUIRE(r.transactions.size() == 1U);
  const auto& t = r.transactions.front();
  BOOST_TEST(t.xid() == 700U);
  BOOST_TEST(t.commit_lsn() == lsn{0x500});
  BOOST_TEST(t.end_lsn() == lsn{0x530});
  BOOST_TEST_REQUIRE(t.change_count() == 3U);
  BOOST_TEST(a.idle());

  std::vector<change_op> ops;
  for (const auto& c : t.changes()) ops.push_back(c.op());
  BOOST_TEST((ops == std::vector<change_op>{change_op::insert, change_op::update, change_op::delete_}));

  const auto& ins = *t.changes().begin();
  BOOST_TEST(ins.relation().table == "orders");
  BOOST_TEST(text_of(ins.record(), "id") == "1");
  BOOST_TEST(text_of(ins.record(), "customer") == "ada");
  BOOST_TEST(text_of(ins.record(), "note") == "<null>");
  BOOST_TEST(ins.unchanged().empty());
  BOOST_TEST(ins.old().empty());

  const auto& upd = *std::next(t.changes().begin(), 1);
  BOOST_TEST(text_of(upd.record(), "customer") == "ada l.");
  BOOST_TEST((upd.unchanged() == std::vector<std::string_view>{"note"}));
  BOOST_TEST(upd.record().value("note").error() == errc::column_unchanged);

  const auto& del = *std::next(t.changes().begin(), 2);
  BOOST_TEST(del.record().empty());
  BOOST_TEST((del.old_kind() == replicant::old_tuple_kind::key));
  BOOST_TEST(text_of(del.old(), "id") == "2");
  BOOST_TEST(del.old().value("nope").error() == errc::column_missing);
}

BOOST_AUTO_TEST_CASE(maps_rows_onto_hana_structs_value_free) {
  replicant::assembler a;
  recorder r;
  BOOST_TEST_REQUIRE(feed(a, r,
                          {pg::begin(lsn{0x10}, 0, 1), orders_relation(),
                           pg::insert(std::nullopt, orders,
                                      {pg::col::text("42"), pg::col::text("s3cr3t-VALUE-4711"), pg::col::null()}),
                           pg::commit(lsn{0x10}, lsn{0x20}, 0)})
                         .has_value());
  const auto& c = *r.transactions.front().changes().begin();
  const auto o = c.as<order>();
  BOOST_TEST_REQUIRE(o.has_value());
  BOOST_TEST(o->id == 42);
  BOOST_TEST(o->customer == "s3cr3t-VALUE-4711");
  BOOST_TEST(!o->note.has_value());

  const auto missing = c.as<order_with_missing_column>();
  BOOST_TEST(missing.error() == errc::column_missing);
  BOOST_TEST(missing.error().member == "region");
  const auto wrong = c.as<order_with_wrong_type>();
  BOOST_TEST(wrong.error() == errc::type_mismatch);
  // The error names the member and its column, never the value; a sink returns it as its own error.
  BOOST_TEST(wrong.error().member == "customer");
  BOOST_TEST(wrong.error().column == "customer");
  BOOST_TEST(wrong.error().message().find("customer") != std::string::npos);
  BOOST_TEST(wrong.error().message().find("s3cr3t") == std::string::npos);
  const replicant::result<void> returned = replicant::unexpected(wrong.error());
  BOOST_TEST((returned.error() == make_error_code(errc::type_mismatch)));
  const auto key = c.as<order_key>();
  BOOST_TEST_REQUIRE(key.has_value());
  BOOST_TEST(key->id == 42);
}

BOOST_AUTO_TEST_CASE(maps_the_old_key_of_a_delete) {
  replicant::assembler a;
  recorder r;
  BOOST_TEST_REQUIRE(
      feed(a, r,
           {pg::begin(lsn{0x10}, 0, 1), orders_relation(),
            pg::remove(std::nullopt, orders, 'K', {pg::col::text("42"), pg::col::null(), pg::col::null()}),
            pg::commit(lsn{0x10}, lsn{0x20}, 0)})
          .has_value());
  const auto& c = *r.transactions.front().changes().begin();
  const auto key = c.old_as<order_key>();
  BOOST_TEST_REQUIRE(key.has_value());
  BOOST_TEST(key->id == 42);
  // A delete has no new row.
  BOOST_TEST(c.as<order_key>().error() == errc::column_missing);
}

BOOST_AUTO_TEST_CASE(routes_logical_messages_by_their_transactional_flag) {
  replicant::assembler a;
  recorder r;
  BOOST_TEST_REQUIRE(
      feed(a, r,
           {pg::message(std::nullopt, false, lsn{0x90}, "alone", "x"), pg::begin(lsn{0x100}, 0, 5),
            pg::message(std::nullopt, true, lsn{0xF0}, "outbox", "payload"), pg::commit(lsn{0x100}, lsn{0x120}, 0)})
          .has_value());
  BOOST_TEST((r.events == std::vector<std::string>{"message:alone", "txn"}));
  const auto msgs = r.transactions.front().messages();
  BOOST_TEST_REQUIRE(msgs.size() == 1U);
  BOOST_TEST(msgs[0].prefix == "outbox");
  BOOST_TEST(msgs[0].transactional);
  BOOST_TEST(msgs[0].content.size() == 7U);
  BOOST_TEST(r.transactions.front().change_count() == 0U);
}

BOOST_AUTO_TEST_CASE(never_delivers_an_empty_transaction) {
  replicant::assembler a;
  recorder r;
  BOOST_TEST_REQUIRE(feed(a, r, {pg::begin(lsn{0x100}, 0, 5), pg::commit(lsn{0x100}, lsn{0x120}, 0)}).has_value());
  BOOST_TEST((r.events == std::vector<std::string>{"empty:0/120"}));
}

BOOST_AUTO_TEST_CASE(reports_schema_changes_before_the_changes_that_use_them) {
  replicant::assembler a;
  recorder r;
  BOOST_TEST_REQUIRE(feed(a, r,
                          {pg::begin(lsn{0x100}, 0, 5), orders_relation(),
                           pg::insert(std::nullopt, orders, {pg::col::text("1"), pg::col::text("a"), pg::col::null()}),
                           pg::commit(lsn{0x100}, lsn{0x120}, 0), pg::begin(lsn{0x200}, 0, 6),
                           pg::relation(std::nullopt, orders, "public", "orders", 'd',
                                        {{"id", int4, -1, true}, {"customer", text, -1, false}}),
                           pg::insert(std::nullopt, orders, {pg::col::text("2"), pg::col::text("b")}),
                           pg::commit(lsn{0x200}, lsn{0x220}, 0)})
                         .has_value());
  BOOST_TEST((r.events == std::vector<std::string>{"txn", "schema:destructive", "txn"}));
  // The first transaction still sees the three-column shape it was decoded with.
  BOOST_TEST(r.transactions[0].changes().begin()->relation().columns.size() == 3U);
  BOOST_TEST(r.transactions[1].changes().begin()->relation().columns.size() == 2U);
}

BOOST_AUTO_TEST_CASE(assembles_streamed_transactions_and_cuts_aborted_subtransactions) {
  replicant::assembler a{{.version = 2, .streaming = replicant::pgoutput_streaming::on}};
  recorder r;
  auto ins = [](std::uint32_t xid, const char* id) {
    return pg::insert(xid, orders, {pg::col::text(id), pg::col::text("x"), pg::col::null()});
  };
  BOOST_TEST_REQUIRE(
      feed(
          a, r,
          {pg::stream_start(10, true), orders_relation(10), ins(10, "1"), ins(11, "2"), ins(12, "3"), pg::stream_stop(),
           // another transaction streams in between
           pg::stream_start(20, true), orders_relation(20), ins(20, "100"), pg::stream_stop(),
           pg::stream_start(10, false), pg::message(12, true, lsn{0x300}, "m12", ""), pg::stream_stop(),
           pg::stream_abort(10, 12), pg::stream_abort(10, 11), pg::stream_start(10, false), ins(13, "4"), ins(10, "5"),
           pg::stream_stop(), pg::stream_abort(20, 20), pg::stream_commit(10, lsn{0x400}, lsn{0x420}, 0)})
          .has_value());
  BOOST_TEST((r.events == std::vector<std::string>{"abort:12:1", "abort:11:1", "abort:20:1", "txn"}));
  BOOST_TEST_REQUIRE(r.transactions.size() == 1U);
  const auto& t = r.transactions.front();
  std::vector<std::string> ids;
  for (const auto& c : t.changes()) ids.push_back(text_of(c.record(), "id"));
  BOOST_TEST((ids == std::vector<std::string>{"1", "4", "5"}));
  BOOST_TEST(t.messages().empty());
  BOOST_TEST(t.commit_lsn() == lsn{0x400});
  BOOST_TEST(a.idle());
}

BOOST_AUTO_TEST_CASE(holds_prepared_transactions_until_commit_prepared) {
  replicant::assembler a{{.version = 3}};
  recorder r;
  auto ins = pg::insert(std::nullopt, orders, {pg::col::text("1"), pg::col::text("x"), pg::col::null()});
  BOOST_TEST_REQUIRE(feed(a, r,
                          {pg::begin_prepare(lsn{0x100}, lsn{0x110}, 0, 30, "g1"), orders_relation(), ins,
                           pg::prepare('P', lsn{0x100}, lsn{0x110}, 0, 30, "g1"),
                           pg::begin_prepare(lsn{0x200}, lsn{0x210}, 0, 31, "g2"), ins,
                           pg::prepare('P', lsn{0x200}, lsn{0x210}, 0, 31, "g2"),
                           pg::rollback_prepared(lsn{0x210}, lsn{0x300}, 0, 0, 31, "g2"),
                           pg::commit_prepared(lsn{0x400}, lsn{0x410}, 0, 30, "g1")})
                         .has_value());
  BOOST_TEST((r.events == std::vector<std::string>{"prepared:g1", "prepared:g2", "rolled_back:31", "txn"}));
  BOOST_TEST(r.transactions.front().commit_lsn() == lsn{0x400});
  BOOST_TEST(r.transactions.front().change_count() == 1U);
  BOOST_TEST(a.idle());
}

BOOST_AUTO_TEST_CASE(rejects_messages_out_of_place) {
  replicant::assembler a;
  recorder r;
  BOOST_TEST_REQUIRE(feed(a, r, {orders_relation()}).has_value());
  BOOST_TEST(
      feed(a, r, {pg::insert(std::nullopt, orders, {pg::col::text("1"), pg::col::null(), pg::col::null()})}).error() ==
      errc::protocol_violation);
  BOOST_TEST(feed(a, r, {pg::commit(lsn{1}, lsn{2}, 0)}).error() == errc::protocol_violation);
  replicant::assembler two_phase{{.version = 3}};
  BOOST_TEST(feed(two_phase, r, {pg::commit_prepared(lsn{1}, lsn{2}, 0, 99, "g")}).error() == errc::protocol_violation);
}

// A Commit or Stream Commit travels in the frame that ends where its commit record does: one whose
// end LSN says otherwise is damaged, and refused before anything of its transaction is delivered.
BOOST_AUTO_TEST_CASE(refuses_a_commit_that_does_not_end_where_its_frame_does) {
  const replicant::frame_position at_end{lsn{0x420}, lsn{0x420}};
  const auto push_all = [](replicant::assembler& a, recorder& r, const std::vector<pg::bytes>& messages,
                           replicant::frame_position frame) -> result<void> {
    for (const auto& m : messages) {
      if (auto pushed = a.push(m, frame, r); !pushed) return pushed;
    }
    return {};
  };
  const auto row = pg::insert(std::nullopt, orders, {pg::col::text("1"), pg::col::null(), pg::col::null()});
  for (const replicant::frame_position frame :
       {at_end, replicant::frame_position{lsn{0x421}, lsn{0x420}}, replicant::frame_position{lsn{0x420}, lsn{0x500}}}) {
    const bool agrees = frame.data_start == at_end.data_start && frame.wal_end == at_end.wal_end;
    replicant::assembler a;
    recorder r;
    const auto pushed = push_all(
        a, r, {pg::begin(lsn{0x400}, 0, 7), orders_relation(), row, pg::commit(lsn{0x400}, lsn{0x420}, 0)}, frame);
    BOOST_TEST(pushed.has_value() == agrees);
    if (!agrees) BOOST_TEST(pushed.error() == errc::protocol_violation);
    BOOST_TEST(r.transactions.size() == (agrees ? 1U : 0U));

    replicant::assembler streaming{{.version = 2, .streaming = replicant::pgoutput_streaming::on}};
    recorder s;
    const auto streamed = push_all(streaming, s,
                                   {pg::stream_start(10, true), orders_relation(10),
                                    pg::insert(10, orders, {pg::col::text("1"), pg::col::null(), pg::col::null()}),
                                    pg::stream_stop(), pg::stream_commit(10, lsn{0x400}, lsn{0x420}, 0)},
                                   frame);
    BOOST_TEST(streamed.has_value() == agrees);
    if (!agrees) BOOST_TEST(streamed.error() == errc::protocol_violation);
    BOOST_TEST(s.transactions.size() == (agrees ? 1U : 0U));
  }
}

BOOST_AUTO_TEST_CASE(reset_discards_everything_in_progress) {
  replicant::assembler a;
  recorder r;
  BOOST_TEST_REQUIRE(feed(a, r,
                          {pg::begin(lsn{0x100}, 0, 5), orders_relation(),
                           pg::insert(std::nullopt, orders, {pg::col::text("1"), pg::col::null(), pg::col::null()})})
                         .has_value());
  BOOST_TEST(a.resident_bytes() > 0U);
  BOOST_TEST(!a.idle());
  a.reset();
  BOOST_TEST(a.idle());
  BOOST_TEST(a.resident_bytes() == 0U);
  // The next session describes its relations again before using them.
  BOOST_TEST_REQUIRE(feed(a, r,
                          {pg::begin(lsn{0x100}, 0, 5), orders_relation(),
                           pg::insert(std::nullopt, orders, {pg::col::text("1"), pg::col::null(), pg::col::null()}),
                           pg::commit(lsn{0x100}, lsn{0x120}, 0)})
                         .has_value());
  BOOST_TEST(r.transactions.size() == 1U);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // assembler_assembler_tests
