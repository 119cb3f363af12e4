// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#include <replicant/decoder/pgoutput_reader.hpp>
#include <replicant/wire/framing.hpp>

#include <boost/test/unit_test.hpp>

#include <support/common/unprintable.hpp>
#include <support/wire/pgoutput_builder.hpp>

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <ranges>
#include <string>
#include <string_view>
#include <vector>

BOOST_AUTO_TEST_SUITE(decoder_pgoutput_tests)

using replicant::lsn;
using replicant::pgoutput_protocol;
using replicant::pgoutput_reader;
using replicant::pgoutput_streaming;
namespace po = replicant::pgoutput;
namespace t = replicant::test;

static_assert(std::ranges::forward_range<po::tuple_data>);
static_assert(std::ranges::forward_range<po::relid_list>);
static_assert(noexcept(std::declval<pgoutput_reader&>().decode(std::span<const std::byte>{})));
static_assert(noexcept(std::declval<pgoutput_reader&>().decode(std::span<const std::byte>{},
                                                               std::declval<po::message&>())));

namespace {

constexpr std::int64_t ts = 0x0003046968881401;  // 2026-11-29 13:55:01.957633 UTC
constexpr std::uint32_t t1 = 16384;
constexpr pgoutput_protocol parallel{4, pgoutput_streaming::parallel};
constexpr pgoutput_protocol streaming_on{4, pgoutput_streaming::on};
const std::string secret = "s3cr3t-VALUE-4711";

const std::vector<t::attr> three_columns{{"id", 23, -1, true}, {"v", 25, -1, false}, {"big", 25, -1, false}};

/// A compact rendering of a tuple for comparisons: "t:7 t:hi n u".
auto render(const po::tuple_data& tuple) -> std::string {
  std::string out;
  for (const po::tuple_column c : tuple) {
    if (!out.empty()) out += ' ';
    out += static_cast<char>(c.kind);
    if (c.kind == po::column_kind::text || c.kind == po::column_kind::binary) {
      out += ':';
      out += c.text();
    }
  }
  return out;
}

/// Decodes @p frame, which must succeed with a T; the result views into @p frame.
template <class T>
auto decode_as(pgoutput_reader& d, const t::bytes& frame) -> T {
  auto r = d.decode(frame);
  if (!r) BOOST_FAIL("decode failed: " << r.error().message());
  const T* m = std::get_if<T>(&*r);
  if (m == nullptr) BOOST_FAIL("decoded to alternative #" << r->index());
  return *m;
}

auto error_of(pgoutput_reader& d, const t::bytes& frame) -> std::error_code {
  const auto r = d.decode(frame);
  return r ? std::error_code{} : r.error();
}

/// A decoder that knows relation t1 (id int4 key, v text, big text), optionally inside stream 752.
auto described(pgoutput_protocol p = parallel, bool in_stream = false) -> pgoutput_reader {
  pgoutput_reader d{p};
  const auto r = t::relation(std::nullopt, t1, "public", "t1", 'd', three_columns);
  BOOST_TEST_REQUIRE(d.decode(r).has_value());
  if (in_stream) {
    const auto s = t::stream_start(752, true);
    BOOST_TEST_REQUIRE(d.decode(s).has_value());
  }
  return d;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------
BOOST_AUTO_TEST_SUITE(pgoutput_decoder_wire)

BOOST_AUTO_TEST_CASE(decodes_the_captured_session) {
  // PROTOCOL.md §9, captured from PostgreSQL 15.20 with proto_version 3: one committed
  // INSERT INTO t1(id,v) VALUES (7,'hi') followed by a non-transactional message. The dump elides
  // the send time of three frames; 0003046968881900 stands in for it.
  const std::vector<t::bytes> frames{
      t::hex("77 00000000050274d0 00000000050274d0 0003046968881820"
             "42 0000000005027550 0003046968881401 00000333"),
      t::hex("77 0000000000000000 0000000000000000 00030469688818cf"
             "52 00004000 7075626c696300 743100 64 0004"
             "01 696400 00000017 ffffffff   00 7600 00000019 ffffffff"
             "00 62696700 00000019 ffffffff 00 657874726100 00000017 ffffffff"),
      t::hex("77 00000000050274d0 00000000050274d0 0003046968881900"
             "49 00004000 4e 0004 74 00000001 37 74 00000002 6869 6e 6e"),
      t::hex("77 0000000005027580 0000000005027580 0003046968881900"
             "43 00 0000000005027550 0000000005027580 0003046968881401"),
      t::hex("77 00000000050275c0 00000000050275c0 0003046968881900"
             "4d 00 00000000050275c0 776d00 00000004 6c772d31"),
  };
  pgoutput_reader d{{3, pgoutput_streaming::off}};
  std::vector<po::message> out;
  std::vector<lsn> header_lsns;
  for (const auto& frame : frames) {
    const auto copy = replicant::parse_copy_data(frame);
    BOOST_TEST_REQUIRE(copy.has_value());
    const auto& w = std::get<replicant::xlog_data>(*copy);
    header_lsns.push_back(w.data_start);
    auto msg = d.decode(w.data);
    BOOST_TEST_REQUIRE(msg.has_value());
    out.push_back(*msg);
  }
  BOOST_TEST((header_lsns == std::vector{lsn{0x50274D0}, lsn{}, lsn{0x50274D0}, lsn{0x5027580}, lsn{0x50275C0}}));

  const auto& b = std::get<po::begin_message>(out[0]);
  BOOST_TEST(b.final_lsn == lsn{0x5027550});
  BOOST_TEST(replicant::to_postgres_time(b.commit_time) == ts);
  BOOST_TEST(b.xid == 819U);

  const auto& r = std::get<po::relation_message>(out[1]);
  BOOST_TEST(!r.xid.has_value());
  BOOST_TEST(r.change == nullptr);
  BOOST_TEST_REQUIRE(r.relation != nullptr);
  BOOST_TEST(r.relation->oid == t1);
  BOOST_TEST(r.relation->schema == "public");
  BOOST_TEST(r.relation->table == "t1");
  BOOST_TEST(r.relation->identity == replicant::replica_identity::default_key);
  const std::vector<replicant::column_info> columns{
      {"id", 23, -1, true}, {"v", 25, -1, false}, {"big", 25, -1, false}, {"extra", 23, -1, false}};
  BOOST_TEST((r.relation->columns == columns));

  const auto& i = std::get<po::insert_message>(out[2]);
  BOOST_TEST(i.relation_oid == t1);
  BOOST_TEST(i.relation == r.relation.get());
  BOOST_TEST(!i.xid.has_value());
  BOOST_TEST(render(i.new_tuple) == "t:7 t:hi n n");

  const auto& c = std::get<po::commit_message>(out[3]);
  BOOST_TEST(c.commit_lsn == lsn{0x5027550});
  BOOST_TEST(c.end_lsn == lsn{0x5027580});
  BOOST_TEST(replicant::to_postgres_time(c.commit_time) == ts);

  const auto& m = std::get<po::logical_message>(out[4]);
  BOOST_TEST(!m.transactional);
  BOOST_TEST(m.message_lsn == lsn{0x50275C0});
  BOOST_TEST(m.prefix == "wm");
  BOOST_TEST(replicant::detail::as_chars(m.content) == "lw-1");
}

BOOST_AUTO_TEST_CASE(fixed_size_messages_have_their_documented_sizes) {
  // Guards the test builder itself against the sizes in PROTOCOL.md §2.2.
  BOOST_TEST(t::begin(lsn{1}, ts, 1).size() == 21U);
  BOOST_TEST(t::commit(lsn{1}, lsn{2}, ts).size() == 26U);
  BOOST_TEST(t::stream_start(1, true).size() == 6U);
  BOOST_TEST(t::stream_stop().size() == 1U);
  BOOST_TEST(t::stream_commit(1, lsn{1}, lsn{2}, ts).size() == 30U);
  BOOST_TEST(t::stream_abort(1, 2).size() == 9U);
  BOOST_TEST(t::stream_abort(1, 2, std::pair{lsn{3}, ts}).size() == 25U);
}

BOOST_AUTO_TEST_CASE(decodes_every_message_of_every_protocol_version) {
  const std::vector<pgoutput_protocol> sessions{{1, pgoutput_streaming::off}, {2, pgoutput_streaming::off},
                                                {2, pgoutput_streaming::on},  {3, pgoutput_streaming::on},
                                                {4, pgoutput_streaming::on},  {4, pgoutput_streaming::parallel}};
  for (const pgoutput_protocol p : sessions) {
    BOOST_TEST_CONTEXT("proto " << p.version << " streaming " << static_cast<int>(p.streaming)) {
      BOOST_TEST_REQUIRE(p.is_valid());
      pgoutput_reader d{p};
      const std::optional<std::uint32_t> none;

      // A plain transaction with every change kind.
      const auto b = t::begin(lsn{0x100}, ts, 700);
      BOOST_TEST(decode_as<po::begin_message>(d, b).xid == 700U);
      const auto o = t::origin(lsn{0x42}, "node_a");
      const auto origin = decode_as<po::origin_message>(d, o);
      BOOST_TEST(origin.origin_lsn == lsn{0x42});
      BOOST_TEST(origin.name == "node_a");
      const auto y = t::type(none, 16392, "", "int4");
      const auto type = decode_as<po::type_message>(d, y);
      BOOST_TEST(type.oid == 16392U);
      BOOST_TEST(type.schema == "pg_catalog");
      BOOST_TEST(type.name == "int4");
      const auto r = t::relation(none, t1, "public", "t1", 'd', three_columns);
      BOOST_TEST(decode_as<po::relation_message>(d, r).relation->columns.size() == 3U);
      const auto i = t::insert(none, t1, {t::col::text("1"), t::col::text("a"), t::col::null()});
      BOOST_TEST(render(decode_as<po::insert_message>(d, i).new_tuple) == "t:1 t:a n");
      const auto u = t::update(none, t1, 0, {}, {t::col::text("1"), t::col::text("b"), t::col::unchanged()});
      const auto update = decode_as<po::update_message>(d, u);
      BOOST_TEST(update.old_kind == po::old_tuple_kind::none);
      BOOST_TEST(update.old_tuple.empty());
      BOOST_TEST(render(update.new_tuple) == "t:1 t:b u");
      const auto uk = t::update(none, t1, 'K', {t::col::text("1"), t::col::null(), t::col::null()},
                                {t::col::text("2"), t::col::text("b"), t::col::null()});
      const auto update_key = decode_as<po::update_message>(d, uk);
      BOOST_TEST(update_key.old_kind == po::old_tuple_kind::key);
      BOOST_TEST(render(update_key.old_tuple) == "t:1 n n");
      BOOST_TEST(render(update_key.new_tuple) == "t:2 t:b n");
      const auto dk = t::remove(none, t1, 'K', {t::col::text("2"), t::col::null(), t::col::null()});
      const auto del = decode_as<po::delete_message>(d, dk);
      BOOST_TEST(del.old_kind == po::old_tuple_kind::key);
      BOOST_TEST(render(del.old_tuple) == "t:2 n n");
      const auto tr = t::truncate(none, 3, {t1});
      const auto truncate = decode_as<po::truncate_message>(d, tr);
      BOOST_TEST(truncate.cascade);
      BOOST_TEST(truncate.restart_identity);
      const auto m = t::message(none, true, lsn{0x150}, "p", "x");
      BOOST_TEST(decode_as<po::logical_message>(d, m).transactional);
      const auto c = t::commit(lsn{0x100}, lsn{0x180}, ts);
      BOOST_TEST(decode_as<po::commit_message>(d, c).end_lsn == lsn{0x180});
      const auto nm = t::message(none, false, lsn{0x190}, "p", "y");
      BOOST_TEST(!decode_as<po::logical_message>(d, nm).transactional);

      // Streaming (protocol 2+, when asked for).
      const auto s = t::stream_start(800, true);
      const auto e = t::stream_stop();
      const auto sc = t::stream_commit(800, lsn{0x200}, lsn{0x280}, ts);
      const bool parallel_abort = p.streaming == pgoutput_streaming::parallel;
      const auto sa = parallel_abort ? t::stream_abort(800, 801, std::pair{lsn{0x210}, ts}) : t::stream_abort(800, 801);
      if (p.streaming == pgoutput_streaming::off) {
        BOOST_TEST(error_of(d, s) == replicant::errc::protocol_violation);
        BOOST_TEST(error_of(d, sc) == replicant::errc::protocol_violation);
        BOOST_TEST(error_of(d, sa) == replicant::errc::protocol_violation);
        BOOST_TEST(error_of(d, e) == replicant::errc::protocol_violation);
      } else {
        const auto start = decode_as<po::stream_start_message>(d, s);
        BOOST_TEST(start.xid == 800U);
        BOOST_TEST(start.first_segment);
        const auto so = t::origin(lsn{}, "node_a");
        BOOST_TEST(decode_as<po::origin_message>(d, so).origin_lsn == lsn{});
        const auto rs = t::relation(801, t1, "public", "t1", 'd', three_columns);
        BOOST_TEST(decode_as<po::relation_message>(d, rs).xid == std::optional<std::uint32_t>{801});
        const auto is = t::insert(801, t1, {t::col::text("9"), t::col::null(), t::col::null()});
        BOOST_TEST(decode_as<po::insert_message>(d, is).xid == std::optional<std::uint32_t>{801});
        decode_as<po::stream_stop_message>(d, e);
        const auto abort = decode_as<po::stream_abort_message>(d, sa);
        BOOST_TEST(abort.xid == 800U);
        BOOST_TEST(abort.subxid == 801U);
        BOOST_TEST(abort.has_abort_info == parallel_abort);
        if (parallel_abort) {
          BOOST_TEST(abort.abort_lsn == lsn{0x210});
          BOOST_TEST(replicant::to_postgres_time(abort.abort_time) == ts);
        }
        const auto s2 = t::stream_start(800, false);
        BOOST_TEST(!decode_as<po::stream_start_message>(d, s2).first_segment);
        decode_as<po::stream_stop_message>(d, e);
        const auto commit = decode_as<po::stream_commit_message>(d, sc);
        BOOST_TEST(commit.xid == 800U);
        BOOST_TEST(commit.commit_lsn == lsn{0x200});
        BOOST_TEST(commit.end_lsn == lsn{0x280});
      }

      // Two-phase commit (protocol 3+).
      const auto bp = t::begin_prepare(lsn{0x300}, lsn{0x380}, ts, 900, "gid-1");
      const auto pp = t::prepare('P', lsn{0x300}, lsn{0x380}, ts, 900, "gid-1");
      const auto cp = t::commit_prepared(lsn{0x400}, lsn{0x480}, ts + 1, 900, "gid-1");
      const auto rp = t::rollback_prepared(lsn{0x380}, lsn{0x500}, ts, ts + 2, 901, "gid-2");
      const auto sp = t::prepare('p', lsn{0x600}, lsn{0x680}, ts, 902, "gid-3");
      if (p.version < 3) {
        for (const auto* frame : {&bp, &pp, &cp, &rp, &sp}) {
          BOOST_TEST(error_of(d, *frame) == replicant::errc::protocol_violation);
        }
      } else {
        const auto begin_prepare = decode_as<po::begin_prepare_message>(d, bp);
        BOOST_TEST(begin_prepare.prepare_lsn == lsn{0x300});
        BOOST_TEST(begin_prepare.end_lsn == lsn{0x380});
        BOOST_TEST(begin_prepare.xid == 900U);
        BOOST_TEST(begin_prepare.gid == "gid-1");
        const auto ip = t::insert(none, t1, {t::col::text("5"), t::col::null(), t::col::null()});
        BOOST_TEST(!decode_as<po::insert_message>(d, ip).xid.has_value());
        const auto prepare = decode_as<po::prepare_message>(d, pp);
        BOOST_TEST(prepare.end_lsn == lsn{0x380});
        BOOST_TEST(prepare.gid == "gid-1");
        const auto commit_prepared = decode_as<po::commit_prepared_message>(d, cp);
        BOOST_TEST(commit_prepared.commit_lsn == lsn{0x400});
        BOOST_TEST(commit_prepared.end_lsn == lsn{0x480});
        BOOST_TEST(replicant::to_postgres_time(commit_prepared.commit_time) == ts + 1);
        BOOST_TEST(commit_prepared.xid == 900U);
        const auto rollback = decode_as<po::rollback_prepared_message>(d, rp);
        BOOST_TEST(rollback.prepare_end_lsn == lsn{0x380});
        BOOST_TEST(rollback.rollback_end_lsn == lsn{0x500});
        BOOST_TEST(replicant::to_postgres_time(rollback.prepare_time) == ts);
        BOOST_TEST(replicant::to_postgres_time(rollback.rollback_time) == ts + 2);
        BOOST_TEST(rollback.xid == 901U);
        BOOST_TEST(rollback.gid == "gid-2");
        if (p.streaming == pgoutput_streaming::off) {
          BOOST_TEST(error_of(d, sp) == replicant::errc::protocol_violation);
        } else {
          const auto stream_prepare = decode_as<po::stream_prepare_message>(d, sp);
          BOOST_TEST(stream_prepare.xid == 902U);
          BOOST_TEST(stream_prepare.prepare_lsn == lsn{0x600});
          BOOST_TEST(stream_prepare.gid == "gid-3");
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(changes_inside_a_stream_carry_their_xid) {
  // As seen live (PROTOCOL.md §2.4): inside S xid=752 a subtransaction's changes carry xid 754.
  pgoutput_reader d{streaming_on};
  const auto s = t::stream_start(752, true);
  decode_as<po::stream_start_message>(d, s);
  BOOST_TEST(d.in_stream());
  BOOST_TEST(d.stream_xid() == std::optional<std::uint32_t>{752});
  const std::optional<std::uint32_t> sub{754};

  const auto y = t::type(sub, 16392, "", "int4");
  BOOST_TEST(decode_as<po::type_message>(d, y).xid == sub);
  const auto r = t::relation(sub, t1, "public", "t1", 'd', three_columns);
  BOOST_TEST(decode_as<po::relation_message>(d, r).xid == sub);
  const auto i = t::insert(sub, t1, {t::col::text("1"), t::col::text("a"), t::col::null()});
  const auto insert = decode_as<po::insert_message>(d, i);
  BOOST_TEST(insert.xid == sub);
  BOOST_TEST(render(insert.new_tuple) == "t:1 t:a n");
  const auto u = t::update(752, t1, 'K', {t::col::text("1"), t::col::null(), t::col::null()},
                           {t::col::text("2"), t::col::text("a"), t::col::null()});
  const auto update = decode_as<po::update_message>(d, u);
  BOOST_TEST(update.xid == std::optional<std::uint32_t>{752});
  BOOST_TEST(render(update.new_tuple) == "t:2 t:a n");
  const auto del = t::remove(sub, t1, 'K', {t::col::text("2"), t::col::null(), t::col::null()});
  BOOST_TEST(decode_as<po::delete_message>(d, del).xid == sub);
  const auto tr = t::truncate(sub, 0, {t1});
  BOOST_TEST(decode_as<po::truncate_message>(d, tr).xid == sub);
  const auto m = t::message(sub, true, lsn{0x10}, "pfx", "body");
  const auto msg = decode_as<po::logical_message>(d, m);
  BOOST_TEST(msg.xid == sub);
  BOOST_TEST(msg.prefix == "pfx");

  // Without the xid the same bytes are misaligned: inside a stream they must not decode.
  const auto no_xid = t::insert(std::nullopt, t1, {t::col::text("1"), t::col::text("a"), t::col::null()});
  BOOST_TEST(!d.decode(no_xid).has_value());

  const auto e = t::stream_stop();
  decode_as<po::stream_stop_message>(d, e);
  BOOST_TEST(!d.in_stream());
  BOOST_TEST(!d.stream_xid().has_value());
  // Outside the stream the decoder reads no xid; the streamed description was not committed.
  BOOST_TEST(error_of(d, no_xid) == replicant::errc::protocol_violation);
}

BOOST_AUTO_TEST_CASE(stream_abort_layout_follows_the_streaming_mode_not_the_version) {
  // PROTOCOL.md §7 gotcha #10: 16 more bytes only with streaming = parallel.
  const auto short_abort = t::stream_abort(757, 757);
  const auto long_abort = t::stream_abort(757, 757, std::pair{lsn{0x5000}, ts});
  for (const pgoutput_protocol p : {pgoutput_protocol{2, pgoutput_streaming::on}, streaming_on}) {
    pgoutput_reader d{p};
    const auto a = decode_as<po::stream_abort_message>(d, short_abort);
    BOOST_TEST(a.xid == 757U);
    BOOST_TEST(a.subxid == 757U);
    BOOST_TEST(!a.has_abort_info);
    BOOST_TEST(a.abort_lsn == lsn{});
    BOOST_TEST(error_of(d, long_abort) == replicant::errc::decode_failure);
  }
  pgoutput_reader d{parallel};
  const auto a = decode_as<po::stream_abort_message>(d, long_abort);
  BOOST_TEST(a.has_abort_info);
  BOOST_TEST(a.abort_lsn == lsn{0x5000});
  BOOST_TEST(replicant::to_postgres_time(a.abort_time) == ts);
  BOOST_TEST(error_of(d, short_abort) == replicant::errc::decode_failure);
}

BOOST_AUTO_TEST_CASE(replica_identity_default_sends_key_tuples) {
  // PROTOCOL.md §9: an UPDATE that changes the primary key sends K with the old key, non-key
  // columns as NULL, then the new row with the unchanged TOASTed column as 'u'.
  pgoutput_reader d = described();
  const auto frame = t::update(std::nullopt, t1, 'K', {t::col::text("1"), t::col::null(), t::col::null()},
                               {t::col::text("2"), t::col::text("b"), t::col::unchanged()});
  const auto u = decode_as<po::update_message>(d, frame);
  BOOST_TEST(u.relation->identity == replicant::replica_identity::default_key);
  BOOST_TEST(u.relation->columns[0].key);
  BOOST_TEST(!u.relation->columns[1].key);
  BOOST_TEST(u.old_kind == po::old_tuple_kind::key);
  BOOST_TEST(render(u.old_tuple) == "t:1 n n");
  BOOST_TEST(render(u.new_tuple) == "t:2 t:b u");
  const auto del = t::remove(std::nullopt, t1, 'K', {t::col::text("2"), t::col::null(), t::col::null()});
  BOOST_TEST(render(decode_as<po::delete_message>(d, del).old_tuple) == "t:2 n n");
}

BOOST_AUTO_TEST_CASE(replica_identity_full_sends_old_rows) {
  pgoutput_reader d{parallel};
  const auto r = t::relation(std::nullopt, t1, "public", "t1", 'f',
                             {{"id", 23, -1, true}, {"v", 25, -1, true}, {"big", 25, -1, true}});
  const auto rel = decode_as<po::relation_message>(d, r);
  BOOST_TEST(rel.relation->identity == replicant::replica_identity::full);
  for (const auto& col : rel.relation->columns) BOOST_TEST(col.key);
  const auto u = t::update(std::nullopt, t1, 'O', {t::col::text("1"), t::col::text("a"), t::col::text("x")},
                           {t::col::text("1"), t::col::text("b"), t::col::text("x")});
  const auto update = decode_as<po::update_message>(d, u);
  BOOST_TEST(update.old_kind == po::old_tuple_kind::full);
  BOOST_TEST(render(update.old_tuple) == "t:1 t:a t:x");
  BOOST_TEST(render(update.new_tuple) == "t:1 t:b t:x");
  const auto del = t::remove(std::nullopt, t1, 'O', {t::col::text("1"), t::col::text("b"), t::col::text("x")});
  const auto removed = decode_as<po::delete_message>(d, del);
  BOOST_TEST(removed.old_kind == po::old_tuple_kind::full);
  BOOST_TEST(render(removed.old_tuple) == "t:1 t:b t:x");

  for (const char identity : {'n', 'i'}) {
    const auto other = t::relation(std::nullopt, t1, "public", "t1", identity, three_columns);
    BOOST_TEST(static_cast<char>(decode_as<po::relation_message>(d, other).relation->identity) == identity);
  }
}

BOOST_AUTO_TEST_CASE(reports_unchanged_toast_without_a_value) {
  pgoutput_reader d = described();
  const auto frame = t::update(std::nullopt, t1, 0, {}, {t::col::text("1"), t::col::text("b"), t::col::unchanged()});
  const auto u = decode_as<po::update_message>(d, frame);
  BOOST_TEST(u.new_tuple.unchanged_toast_count() == 1U);
  std::vector<po::tuple_column> cols(u.new_tuple.begin(), u.new_tuple.end());
  BOOST_TEST_REQUIRE(cols.size() == 3U);
  BOOST_TEST(cols[2].is_unchanged_toast());
  BOOST_TEST(!cols[2].is_null());
  BOOST_TEST(cols[2].bytes.empty());
  BOOST_TEST(!cols[0].is_unchanged_toast());
  const auto i = t::insert(std::nullopt, t1, {t::col::text("1"), t::col::text(""), t::col::null()});
  const auto insert = decode_as<po::insert_message>(d, i);
  BOOST_TEST(insert.new_tuple.unchanged_toast_count() == 0U);
  std::vector<po::tuple_column> icols(insert.new_tuple.begin(), insert.new_tuple.end());
  BOOST_TEST(icols[1].kind == po::column_kind::text);  // an empty text is not a NULL
  BOOST_TEST(icols[1].bytes.empty());
  BOOST_TEST(icols[2].is_null());
}

BOOST_AUTO_TEST_CASE(column_values_are_views_into_the_frame) {
  pgoutput_reader d = described();
  const std::string binary("\x00\x01\xff\x00", 4);
  const auto frame = t::insert(std::nullopt, t1, {t::col::binary(binary), t::col::text("hello"), t::col::null()});
  const auto i = decode_as<po::insert_message>(d, frame);
  std::vector<po::tuple_column> cols(i.new_tuple.begin(), i.new_tuple.end());
  BOOST_TEST_REQUIRE(cols.size() == 3U);
  BOOST_TEST(cols[0].kind == po::column_kind::binary);
  BOOST_TEST(cols[0].text() == binary);
  BOOST_TEST(cols[1].text() == "hello");
  const auto* begin = frame.data();
  const auto* end = frame.data() + frame.size();
  for (const auto& c : cols) {
    if (c.bytes.empty()) continue;
    BOOST_TEST((c.bytes.data() >= begin && c.bytes.data() + c.bytes.size() <= end));
  }
  BOOST_TEST(i.new_tuple.wire().data() > begin);
  BOOST_TEST(i.new_tuple.wire().data() + i.new_tuple.wire().size() == end);

  const auto m = t::message(std::nullopt, false, lsn{1}, "pfx", std::string("a\0b", 3));
  const auto msg = decode_as<po::logical_message>(d, m);
  BOOST_TEST(msg.content.size() == 3U);  // NUL bytes are content, not terminators
  BOOST_TEST((msg.content.data() > m.data() && msg.prefix.data() > reinterpret_cast<const char*>(m.data())));
}

BOOST_AUTO_TEST_CASE(tuple_wire_bytes_reparse_to_the_same_tuple) {
  pgoutput_reader d = described();
  const auto frame = t::update(std::nullopt, t1, 0, {}, {t::col::text("1"), t::col::binary("zz"), t::col::unchanged()});
  const auto u = decode_as<po::update_message>(d, frame);
  const t::bytes copy(u.new_tuple.wire().begin(), u.new_tuple.wire().end());  // e.g. spilled and read back
  const auto again = po::parse_tuple_data(copy);
  BOOST_TEST_REQUIRE(again.has_value());
  BOOST_TEST(render(*again) == "t:1 b:zz u");
  BOOST_TEST(again->unchanged_toast_count() == 1U);
  for (std::size_t n = 0; n < copy.size(); ++n) {
    BOOST_TEST(!po::parse_tuple_data(std::span{copy}.first(n)).has_value());
  }
  const auto empty = t::hex("0000");
  BOOST_TEST(po::parse_tuple_data(empty).value().empty());
  BOOST_TEST((po::tuple_data{}.begin() == po::tuple_data{}.end()));
}

BOOST_AUTO_TEST_CASE(decodes_truncate_options_and_relids) {
  pgoutput_reader d = described();
  for (std::uint8_t options = 0; options < 4; ++options) {
    const auto frame = t::truncate(std::nullopt, options, {t1, 16390, 0xFFFFFFFF});
    const auto tr = decode_as<po::truncate_message>(d, frame);
    BOOST_TEST(tr.cascade == ((options & 1) != 0));
    BOOST_TEST(tr.restart_identity == ((options & 2) != 0));
    BOOST_TEST_REQUIRE(tr.relation_oids.size() == 3U);
    BOOST_TEST(tr.relation_oids[0] == t1);
    BOOST_TEST(tr.relation_oids[2] == 0xFFFFFFFFU);
    const std::vector<std::uint32_t> ids(tr.relation_oids.begin(), tr.relation_oids.end());
    BOOST_TEST((ids == std::vector<std::uint32_t>{t1, 16390, 0xFFFFFFFF}));
  }
  const auto none = t::truncate(std::nullopt, 0, {});
  BOOST_TEST(decode_as<po::truncate_message>(d, none).relation_oids.empty());
  for (const int unknown : {4, 8, 0x80, 0xFF}) {
    const auto frame = t::truncate(std::nullopt, static_cast<std::uint8_t>(unknown), {t1});
    BOOST_TEST(error_of(d, frame) == replicant::errc::decode_failure);
  }
}

BOOST_AUTO_TEST_CASE(decodes_into_a_reused_message) {
  pgoutput_reader d = described();
  po::message reused;
  const auto i = t::insert(std::nullopt, t1, {t::col::text("1"), t::col::text("a"), t::col::null()});
  BOOST_TEST(!d.decode(i, reused));
  BOOST_TEST_REQUIRE(std::holds_alternative<po::insert_message>(reused));
  BOOST_TEST(render(std::get<po::insert_message>(reused).new_tuple) == "t:1 t:a n");
  const auto c = t::commit(lsn{1}, lsn{2}, ts);
  BOOST_TEST(!d.decode(c, reused));
  BOOST_TEST(std::get<po::commit_message>(reused).end_lsn == lsn{2});
  const auto bad = t::commit(lsn{1}, lsn{2}, ts, 1);
  BOOST_TEST(d.decode(bad, reused) == replicant::errc::decode_failure);
  const auto unknown = t::insert(std::nullopt, 99, {t::col::null()});
  BOOST_TEST(d.decode(unknown, reused) == replicant::errc::protocol_violation);
}

BOOST_AUTO_TEST_CASE(describes_types_with_their_base_type) {
  // PROTOCOL.md §9: a domain column is described with the domain's OID and its base type's name.
  pgoutput_reader d{parallel};
  const auto y = t::type(std::nullopt, 16392, "", "int4");
  decode_as<po::type_message>(d, y);
  const auto* info = d.find_type(16392);
  BOOST_TEST_REQUIRE(info != nullptr);
  BOOST_TEST(info->schema == "pg_catalog");
  BOOST_TEST(info->name == "int4");
  BOOST_TEST(d.find_type(16393) == nullptr);
  const auto again = t::type(std::nullopt, 16392, "public", "mood");
  decode_as<po::type_message>(d, again);
  BOOST_TEST(d.find_type(16392)->schema == "public");
  BOOST_TEST(d.find_type(16392)->name == "mood");
}

BOOST_AUTO_TEST_SUITE_END()

// ---------------------------------------------------------------------------------------------------
BOOST_AUTO_TEST_SUITE(pgoutput_decoder_malformed)

namespace {

struct sample {
  std::string name;
  pgoutput_protocol protocol;
  bool in_stream;
  t::bytes frame;
};

auto every_message() -> std::vector<sample> {
  const std::optional<std::uint32_t> none;
  const std::optional<std::uint32_t> xid{753};
  const std::vector<t::col> row{t::col::text("1"), t::col::binary("bb"), t::col::unchanged()};
  const std::vector<t::col> key{t::col::text("1"), t::col::null(), t::col::null()};
  return {
      {"B", parallel, false, t::begin(lsn{1}, ts, 2)},
      {"C", parallel, false, t::commit(lsn{1}, lsn{2}, ts)},
      {"O", parallel, false, t::origin(lsn{1}, "origin")},
      {"R", parallel, false, t::relation(none, t1, "public", "t1", 'd', three_columns)},
      {"Y", parallel, false, t::type(none, 16392, "public", "mood")},
      {"I", parallel, false, t::insert(none, t1, key)},
      {"U", parallel, false, t::update(none, t1, 0, {}, row)},
      {"U K", parallel, false, t::update(none, t1, 'K', key, row)},
      {"U O", parallel, false, t::update(none, t1, 'O', key, row)},
      {"D K", parallel, false, t::remove(none, t1, 'K', key)},
      {"D O", parallel, false, t::remove(none, t1, 'O', key)},
      {"T", parallel, false, t::truncate(none, 1, {t1, 16390})},
      {"M", parallel, false, t::message(none, true, lsn{3}, "prefix", "content")},
      {"S", parallel, false, t::stream_start(752, true)},
      {"c", parallel, false, t::stream_commit(752, lsn{1}, lsn{2}, ts)},
      {"A parallel", parallel, false, t::stream_abort(752, 753, std::pair{lsn{1}, ts})},
      {"A", streaming_on, false, t::stream_abort(752, 753)},
      {"b", parallel, false, t::begin_prepare(lsn{1}, lsn{2}, ts, 3, "gid")},
      {"P", parallel, false, t::prepare('P', lsn{1}, lsn{2}, ts, 3, "gid")},
      {"K", parallel, false, t::commit_prepared(lsn{1}, lsn{2}, ts, 3, "gid")},
      {"r", parallel, false, t::rollback_prepared(lsn{1}, lsn{2}, ts, ts, 3, "gid")},
      {"p", parallel, false, t::prepare('p', lsn{1}, lsn{2}, ts, 3, "gid")},
      {"R[xid]", parallel, true, t::relation(xid, t1, "public", "t1", 'd', three_columns)},
      {"Y[xid]", parallel, true, t::type(xid, 16392, "public", "mood")},
      {"I[xid]", parallel, true, t::insert(xid, t1, key)},
      {"U[xid] K", parallel, true, t::update(xid, t1, 'K', key, row)},
      {"D[xid] O", parallel, true, t::remove(xid, t1, 'O', key)},
      {"T[xid]", parallel, true, t::truncate(xid, 3, {t1})},
      {"M[xid]", parallel, true, t::message(xid, true, lsn{3}, "prefix", "content")},
      {"O[stream]", parallel, true, t::origin(lsn{}, "origin")},
      {"E", parallel, true, t::stream_stop()},
  };
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_truncation_of_every_message_is_a_decode_failure) {
  for (const sample& s : every_message()) {
    BOOST_TEST_CONTEXT("message " << s.name) {
      {  // The whole message decodes, so the failures below are about length alone.
        pgoutput_reader d = described(s.protocol, s.in_stream);
        const auto r = d.decode(s.frame);
        BOOST_TEST_REQUIRE(r.has_value(), "whole message: " << (r ? "" : r.error().message()));
      }
      for (std::size_t n = 0; n < s.frame.size(); ++n) {
        pgoutput_reader d = described(s.protocol, s.in_stream);
        const auto before = d.find_relation(t1);
        const auto r = d.decode(std::span{s.frame}.first(n));
        BOOST_TEST_CONTEXT("prefix " << n << " of " << s.frame.size()) {
          BOOST_TEST_REQUIRE(!r.has_value());
          BOOST_TEST(r.error() == replicant::errc::decode_failure);
          // A failed decode leaves the decoder as it was.
          BOOST_TEST(d.in_stream() == s.in_stream);
          BOOST_TEST(d.find_relation(t1) == before);
        }
      }
      pgoutput_reader d = described(s.protocol, s.in_stream);
      t::bytes longer = s.frame;
      longer.push_back(std::byte{0});
      BOOST_TEST(error_of(d, longer) == replicant::errc::decode_failure);  // trailing bytes
    }
  }
}

BOOST_AUTO_TEST_CASE(unknown_message_types_are_decode_failures) {
  const std::string_view known = "BCORYIUDTMSEcAbPKrp";
  for (int type = 0; type < 256; ++type) {
    if (known.find(static_cast<char>(type)) != std::string_view::npos) continue;
    pgoutput_reader d = described();
    t::bytes frame = t::insert(std::nullopt, t1, {t::col::text("1"), t::col::null(), t::col::null()});
    frame[0] = static_cast<std::byte>(type);
    BOOST_TEST_CONTEXT("type " << type) { BOOST_TEST(error_of(d, frame) == replicant::errc::decode_failure); }
  }
  pgoutput_reader d;
  BOOST_TEST(error_of(d, {}) == replicant::errc::decode_failure);
}

BOOST_AUTO_TEST_CASE(unknown_column_kinds_are_decode_failures) {
  for (int kind = 0; kind < 256; ++kind) {
    if (kind == 'n' || kind == 'u' || kind == 't' || kind == 'b') continue;
    pgoutput_reader d = described();
    t::bytes frame = t::insert(std::nullopt, t1, {t::col::null(), t::col::null(), t::col::null()});
    frame.back() = static_cast<std::byte>(kind);
    BOOST_TEST_CONTEXT("kind " << kind) { BOOST_TEST(error_of(d, frame) == replicant::errc::decode_failure); }
  }
}

BOOST_AUTO_TEST_CASE(nonzero_flags_are_decode_failures) {
  for (const int bits : {1, 2, 0x80, 0xFF}) {
    const auto flags = static_cast<std::uint8_t>(bits);
    BOOST_TEST_CONTEXT("flags " << bits) {
      pgoutput_reader d{parallel};
      BOOST_TEST(error_of(d, t::commit(lsn{1}, lsn{2}, ts, flags)) == replicant::errc::decode_failure);
      BOOST_TEST(error_of(d, t::stream_commit(1, lsn{1}, lsn{2}, ts, flags)) == replicant::errc::decode_failure);
      BOOST_TEST(error_of(d, t::prepare('P', lsn{1}, lsn{2}, ts, 3, "g", flags)) == replicant::errc::decode_failure);
      BOOST_TEST(error_of(d, t::prepare('p', lsn{1}, lsn{2}, ts, 3, "g", flags)) == replicant::errc::decode_failure);
      BOOST_TEST(error_of(d, t::commit_prepared(lsn{1}, lsn{2}, ts, 3, "g", flags)) == replicant::errc::decode_failure);
      BOOST_TEST(error_of(d, t::rollback_prepared(lsn{1}, lsn{2}, ts, ts, 3, "g", flags)) ==
                 replicant::errc::decode_failure);
    }
  }
}

BOOST_AUTO_TEST_CASE(unknown_flag_bits_and_enumerations_are_decode_failures) {
  pgoutput_reader d{parallel};
  // Relation column flags: only bit 0 (key) exists.
  auto r = t::relation(std::nullopt, t1, "public", "t1", 'd', {{"id", 23, -1, false}});
  const auto flags_at = 1 + 4 + 7 + 3 + 1 + 2;
  BOOST_TEST_REQUIRE(static_cast<int>(r[flags_at]) == 0);
  r[flags_at] = std::byte{2};
  BOOST_TEST(error_of(d, r) == replicant::errc::decode_failure);
  // Replica identity: only d, n, f, i.
  BOOST_TEST(error_of(d, t::relation(std::nullopt, t1, "public", "t1", 'x', three_columns)) ==
             replicant::errc::decode_failure);
  // Message flags: only bit 0 (transactional).
  auto m = t::message(std::nullopt, true, lsn{1}, "p", "c");
  m[1] = std::byte{3};
  BOOST_TEST(error_of(d, m) == replicant::errc::decode_failure);
  // Stream Start's first-segment flag is 0 or 1.
  auto s = t::stream_start(1, true);
  s[5] = std::byte{2};
  BOOST_TEST(error_of(d, s) == replicant::errc::decode_failure);
  BOOST_TEST(!d.in_stream());
  // A marker other than 'K', 'O' or 'N' where an Update or Delete expects one.
  auto u = t::update(std::nullopt, t1, 'K', {t::col::null(), t::col::null(), t::col::null()},
                     {t::col::null(), t::col::null(), t::col::null()});
  u[5] = std::byte{'X'};
  pgoutput_reader known = described();
  BOOST_TEST(error_of(known, u) == replicant::errc::decode_failure);
  BOOST_TEST(error_of(known, t::remove(std::nullopt, t1, 'N', {t::col::null(), t::col::null(), t::col::null()})) ==
             replicant::errc::decode_failure);
  // A global transaction identifier longer than PostgreSQL allows (199 bytes).
  BOOST_TEST(
      decode_as<po::prepare_message>(d, t::prepare('P', lsn{1}, lsn{2}, ts, 3, std::string(199, 'g'))).gid.size() ==
      199U);
  BOOST_TEST(error_of(d, t::prepare('P', lsn{1}, lsn{2}, ts, 3, std::string(200, 'g'))) ==
             replicant::errc::decode_failure);
}

BOOST_AUTO_TEST_CASE(strings_without_nul_are_decode_failures) {
  pgoutput_reader d = described();
  // Each message ends with a string; dropping its NUL leaves a string running to the end.
  for (auto frame : {t::origin(lsn{1}, "origin"), t::type(std::nullopt, 16392, "public", "mood"),
                     t::begin_prepare(lsn{1}, lsn{2}, ts, 3, "gid"), t::prepare('P', lsn{1}, lsn{2}, ts, 3, "gid")}) {
    BOOST_TEST_REQUIRE(static_cast<int>(frame.back()) == 0);
    frame.back() = std::byte{'x'};
    BOOST_TEST(error_of(d, frame) == replicant::errc::decode_failure);
  }
  // A relation whose last column name has no NUL and whose declared sizes run out.
  auto r = t::wire{}.ch('R').u32(t1).str("public").str("t1").ch('d').u16(1).u8(0).raw("name-without-end").take();
  BOOST_TEST(error_of(d, r) == replicant::errc::decode_failure);
}

BOOST_AUTO_TEST_CASE(negative_lengths_and_impossible_counts_are_decode_failures) {
  pgoutput_reader d = described();
  const auto negative_text = t::wire{}.ch('I').u32(t1).ch('N').u16(3).ch('t').i32(-1).ch('n').ch('n').take();
  BOOST_TEST(error_of(d, negative_text) == replicant::errc::decode_failure);
  const auto negative_content = t::wire{}.ch('M').u8(0).u64(1).str("p").i32(-1).take();
  BOOST_TEST(error_of(d, negative_content) == replicant::errc::decode_failure);
  const auto negative_count = t::wire{}.ch('T').i32(-1).u8(0).u32(t1).take();
  BOOST_TEST(error_of(d, negative_count) == replicant::errc::decode_failure);
  // Counts far beyond what the payload can hold fail (and cannot make the decoder reserve memory).
  const auto many_columns = t::wire{}.ch('I').u32(t1).ch('N').u16(0xFFFF).ch('n').take();
  BOOST_TEST(error_of(d, many_columns) == replicant::errc::decode_failure);
  const auto many_attrs = t::wire{}.ch('R').u32(t1).str("s").str("t").ch('d').u16(0xFFFF).take();
  BOOST_TEST(error_of(d, many_attrs) == replicant::errc::decode_failure);
  const auto many_relids = t::wire{}.ch('T').i32(std::numeric_limits<std::int32_t>::max()).u8(0).u32(t1).take();
  BOOST_TEST(error_of(d, many_relids) == replicant::errc::decode_failure);
  const auto huge_text = t::wire{}.ch('I').u32(t1).ch('N').u16(3).ch('t').i32(0x7FFFFFFF).ch('n').ch('n').take();
  BOOST_TEST(error_of(d, huge_text) == replicant::errc::decode_failure);
  // Duplicate column names cannot come from PostgreSQL.
  const auto duplicate = t::relation(std::nullopt, 16390, "public", "t2", 'd', {{"a", 23}, {"b", 23}, {"a", 25}});
  BOOST_TEST(error_of(d, duplicate) == replicant::errc::decode_failure);
  BOOST_TEST(d.find_relation(16390) == nullptr);
}

BOOST_AUTO_TEST_CASE(errors_never_contain_the_data) {
  // Malformed messages built around a distinctive value: whatever fails, the error text must
  // not repeat it (value-free errors, DESIGN.md §7).
  pgoutput_reader d = described();
  std::vector<t::bytes> frames{
      t::wire{}
          .ch('I')
          .u32(t1)
          .ch('N')
          .u16(3)
          .ch('t')
          .i32(static_cast<std::int32_t>(secret.size()))
          .raw(secret)
          .ch('?')
          .ch('n')
          .take(),
      t::wire{}.ch('M').u8(0).u64(1).str(secret).i32(100).raw(secret).take(),
      t::wire{}.ch('O').u64(1).raw(secret).take(),
      t::wire{}.ch('R').u32(1).str(secret).str(secret).ch('d').u16(1).u8(2).str(secret).u32(25).i32(-1).take(),
      t::wire{}.ch('Y').u32(1).str(secret).raw(secret).take(),
      t::wire{}.raw(secret).take(),
      t::insert(std::nullopt, 99999, {t::col::text(secret)}),                  // unknown relation
      t::insert(std::nullopt, t1, {t::col::text(secret)}),                     // wrong column count
      t::prepare('P', lsn{1}, lsn{2}, ts, 3, secret + std::string(200, 'x')),  // gid too long
      t::commit(lsn{1}, lsn{2}, ts, 1),
  };
  auto full = t::insert(std::nullopt, t1, {t::col::text(secret), t::col::text(secret), t::col::text(secret)});
  for (std::size_t n = 0; n < full.size(); ++n)
    frames.emplace_back(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
  for (const auto& frame : frames) {
    const auto r = d.decode(frame);
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST(r.error().message().find(secret) == std::string::npos);
    BOOST_TEST(r.error().message().find("s3cr3t") == std::string::npos);
    BOOST_TEST(std::string_view{r.error().category().name()}.find("s3cr3t") == std::string_view::npos);
  }
}

// A numeric or bytea text without its type's one shape is corrupt: the row is a decode failure at
// once, before the transaction can reach a sink, in every tuple of every kind of change; the
// error never repeats the value, and the decoder is left as it was.
BOOST_AUTO_TEST_CASE(numeric_and_bytea_text_without_its_shape_is_a_decode_failure) {
  constexpr std::uint32_t t2 = 16390;
  const std::vector<t::attr> shaped{{"id", 23, -1, true},         {"amount", 1700, -1, false}, {"blob", 17, -1, false},
                                    {"amounts", 1231, -1, false}, {"blobs", 1001, -1, false},  {"note", 25, -1, false}};
  pgoutput_reader d{parallel};
  BOOST_TEST_REQUIRE(d.decode(t::relation(std::nullopt, t2, "public", "t2", 'f', shaped)).has_value());
  const auto row = [](std::string amount, std::string blob, std::string amounts = "{1.5,NaN}",
                      std::string blobs = "{\"\\\\x00ff\"}") {
    return std::vector<t::col>{t::col::text("1"),
                               t::col::text(std::move(amount)),
                               t::col::text(std::move(blob)),
                               t::col::text(std::move(amounts)),
                               t::col::text(std::move(blobs)),
                               t::col::text(secret)};
  };
  // The shapes the server prints are accepted, also where casting would be lenient (`note`).
  for (const auto& good : {row("-12.50", "\\x00FFab"), row("NaN", "\\x"), row("-Infinity", "\\x0a", "{}", "{NULL}")}) {
    BOOST_TEST(d.decode(t::insert(std::nullopt, t2, good)).has_value());
    BOOST_TEST(d.decode(t::update(std::nullopt, t2, 'O', good, good)).has_value());
    BOOST_TEST(d.decode(t::remove(std::nullopt, t2, 'O', good)).has_value());
  }
  const auto ok = row("1", "\\x00");
  const std::vector<std::vector<t::col>> bad{
      row(secret, "\\x00"),
      row("1.", "\\x00"),
      row("1e5", "\\x00"),
      row(" 1", "\\x00"),
      row("nan", "\\x00"),
      row("", "\\x00"),
      row("1", "\\x0"),
      row("1", "\\xzz"),
      row("1", "00ff"),
      row("1", secret),
      row("1", ""),
      row("1", "\\x00", "{1.5," + secret + "}"),
      row("1", "\\x00", "{1}", "{" + secret + "}"),
  };
  for (const auto& b : bad) {
    for (const auto& frame : {t::insert(std::nullopt, t2, b), t::update(std::nullopt, t2, 'O', ok, b),
                              t::update(std::nullopt, t2, 'O', b, ok), t::remove(std::nullopt, t2, 'O', b)}) {
      const auto r = d.decode(frame);
      BOOST_TEST_REQUIRE(!r.has_value());
      BOOST_TEST(r.error() == replicant::errc::decode_failure);
      BOOST_TEST(r.error().message().find("s3cr3t") == std::string::npos);
    }
  }
  // Binary values are casting's to check, and the decoder still decodes after the failures.
  auto binary = ok;
  binary[1] = t::col::binary("not numeric send output");
  BOOST_TEST(d.decode(t::insert(std::nullopt, t2, binary)).has_value());
  BOOST_TEST(d.decode(t::insert(std::nullopt, t2, ok)).has_value());
  // A table without such a column is not looked at: any text goes.
  pgoutput_reader plain = described();
  BOOST_TEST(
      plain.decode(t::insert(std::nullopt, t1, {t::col::text("x"), t::col::text(secret), t::col::null()})).has_value());
}

BOOST_AUTO_TEST_SUITE_END()

// ---------------------------------------------------------------------------------------------------
BOOST_AUTO_TEST_SUITE(pgoutput_decoder_session)

BOOST_AUTO_TEST_CASE(changes_need_a_described_relation_with_matching_columns) {
  pgoutput_reader d{parallel};
  const std::vector<t::col> row{t::col::text("1"), t::col::null(), t::col::null()};
  const auto before = t::insert(std::nullopt, t1, row);
  BOOST_TEST(error_of(d, before) == replicant::errc::protocol_violation);
  const auto r = t::relation(std::nullopt, t1, "public", "t1", 'd', three_columns);
  decode_as<po::relation_message>(d, r);
  BOOST_TEST(d.decode(before).has_value());

  const std::vector<t::col> short_row{t::col::text("1"), t::col::null()};
  BOOST_TEST(error_of(d, t::insert(std::nullopt, t1, short_row)) == replicant::errc::protocol_violation);
  BOOST_TEST(error_of(d, t::update(std::nullopt, t1, 0, {}, short_row)) == replicant::errc::protocol_violation);
  BOOST_TEST(error_of(d, t::update(std::nullopt, t1, 'K', short_row, row)) == replicant::errc::protocol_violation);
  BOOST_TEST(error_of(d, t::remove(std::nullopt, t1, 'O', short_row)) == replicant::errc::protocol_violation);
  BOOST_TEST(error_of(d, t::remove(std::nullopt, 16390, 'K', row)) == replicant::errc::protocol_violation);
  BOOST_TEST(error_of(d, t::update(std::nullopt, 16390, 0, {}, row)) == replicant::errc::protocol_violation);
}

BOOST_AUTO_TEST_CASE(messages_out_of_place_are_protocol_violations) {
  const auto s = t::stream_start(10, true);
  const auto e = t::stream_stop();
  {  // protocol 1: no streaming, no two-phase
    pgoutput_reader d{{1, pgoutput_streaming::off}};
    BOOST_TEST(error_of(d, s) == replicant::errc::protocol_violation);
    BOOST_TEST(error_of(d, t::begin_prepare(lsn{1}, lsn{2}, ts, 3, "g")) == replicant::errc::protocol_violation);
  }
  pgoutput_reader d{parallel};
  BOOST_TEST(error_of(d, e) == replicant::errc::protocol_violation);  // not in a stream
  decode_as<po::stream_start_message>(d, s);
  BOOST_TEST(error_of(d, s) == replicant::errc::protocol_violation);  // already in one
  const std::vector<t::bytes> not_in_a_stream{
      t::begin(lsn{1}, ts, 2),
      t::commit(lsn{1}, lsn{2}, ts),
      t::stream_commit(10, lsn{1}, lsn{2}, ts),
      t::stream_abort(10, 10, std::pair{lsn{1}, ts}),
      t::begin_prepare(lsn{1}, lsn{2}, ts, 3, "g"),
      t::prepare('P', lsn{1}, lsn{2}, ts, 3, "g"),
      t::commit_prepared(lsn{1}, lsn{2}, ts, 3, "g"),
      t::rollback_prepared(lsn{1}, lsn{2}, ts, ts, 3, "g"),
      t::prepare('p', lsn{1}, lsn{2}, ts, 3, "g"),
  };
  for (const auto& frame : not_in_a_stream) {
    BOOST_TEST_CONTEXT("type " << static_cast<char>(frame[0])) {
      BOOST_TEST(error_of(d, frame) == replicant::errc::protocol_violation);
      BOOST_TEST(d.in_stream());
      BOOST_TEST(d.stream_xid() == std::optional<std::uint32_t>{10});
    }
  }
  decode_as<po::stream_stop_message>(d, e);
  BOOST_TEST(!d.in_stream());
}

BOOST_AUTO_TEST_CASE(identical_resends_reuse_the_cached_relation) {
  pgoutput_reader d{parallel};
  const auto r = t::relation(std::nullopt, t1, "public", "t1", 'd', three_columns);
  const auto first = decode_as<po::relation_message>(d, r);
  BOOST_TEST(first.change == nullptr);
  const auto again = decode_as<po::relation_message>(d, r);
  BOOST_TEST(again.change == nullptr);
  BOOST_TEST(d.last_schema_change() == nullptr);
  BOOST_TEST(again.relation == first.relation);  // the same object: nothing was rebuilt
  BOOST_TEST(d.find_relation(t1) == first.relation);
  const auto i = t::insert(std::nullopt, t1, {t::col::text("1"), t::col::null(), t::col::null()});
  BOOST_TEST(decode_as<po::insert_message>(d, i).relation == first.relation.get());
}

BOOST_AUTO_TEST_CASE(classifies_changed_relations) {
  pgoutput_reader d{parallel};
  const auto r = t::relation(std::nullopt, t1, "public", "t1", 'd', three_columns);
  const auto first = decode_as<po::relation_message>(d, r);

  auto four = three_columns;
  four.push_back({"added", 23, -1, false});
  const auto wider = t::relation(std::nullopt, t1, "public", "t1", 'd', four);
  const auto added = decode_as<po::relation_message>(d, wider);
  BOOST_TEST_REQUIRE(added.change != nullptr);
  BOOST_TEST(added.change->kind == replicant::schema_change_kind::additive);
  BOOST_TEST(added.change->relation_oid == t1);
  BOOST_TEST(added.change->schema == "public");
  BOOST_TEST(added.change->table == "t1");
  BOOST_TEST_REQUIRE(added.change->changes.size() == 1U);
  BOOST_TEST(added.change->changes[0].column == "added");
  BOOST_TEST(added.change->changes[0].kind == replicant::column_change_kind::added);
  BOOST_TEST(d.last_schema_change() == added.change);
  // The old description is untouched: rows decoded with it stay interpretable.
  BOOST_TEST(first.relation->columns.size() == 3U);
  BOOST_TEST(added.relation->columns.size() == 4U);
  const auto old_row = t::insert(std::nullopt, t1, {t::col::text("1"), t::col::null(), t::col::null()});
  BOOST_TEST(error_of(d, old_row) == replicant::errc::protocol_violation);
  const auto new_row =
      t::insert(std::nullopt, t1, {t::col::text("1"), t::col::null(), t::col::null(), t::col::text("4")});
  BOOST_TEST(decode_as<po::insert_message>(d, new_row).relation == added.relation.get());

  auto retyped = four;
  retyped[1].type_oid = 1043;
  retyped[1].type_modifier = 14;
  const auto narrowed = t::relation(std::nullopt, t1, "public", "t1", 'd', retyped);
  const auto destructive = decode_as<po::relation_message>(d, narrowed);
  BOOST_TEST_REQUIRE(destructive.change != nullptr);
  BOOST_TEST(destructive.change->kind == replicant::schema_change_kind::destructive);
  BOOST_TEST_REQUIRE(destructive.change->changes.size() == 2U);
  BOOST_TEST(destructive.change->changes[0].kind == replicant::column_change_kind::type_changed);
  BOOST_TEST(destructive.change->changes[1].kind == replicant::column_change_kind::type_modifier_changed);
  BOOST_TEST(destructive.change->changes[0].column == "v");

  const auto identity = t::relation(std::nullopt, t1, "public", "t1", 'n', retyped);
  const auto changed = decode_as<po::relation_message>(d, identity);
  BOOST_TEST_REQUIRE(changed.change != nullptr);
  BOOST_TEST(changed.change->changes[0].kind == replicant::column_change_kind::replica_identity_changed);

  // An identical re-send after a change reports nothing again.
  BOOST_TEST(decode_as<po::relation_message>(d, identity).change == nullptr);
  BOOST_TEST(d.last_schema_change() == nullptr);
}

BOOST_AUTO_TEST_CASE(spells_out_pg_catalog) {
  pgoutput_reader d{parallel};
  const auto r = t::relation(std::nullopt, 1259, "", "pg_class", 'n', {{"oid", 26}});
  BOOST_TEST(decode_as<po::relation_message>(d, r).relation->schema == "pg_catalog");
  BOOST_TEST(decode_as<po::relation_message>(d, r).change == nullptr);  // still identical
}

BOOST_AUTO_TEST_CASE(streamed_descriptions_stay_with_their_transaction_until_it_commits) {
  pgoutput_reader d = described(streaming_on);
  const std::vector<t::col> three{t::col::text("1"), t::col::null(), t::col::null()};
  const std::vector<t::col> four{t::col::text("1"), t::col::null(), t::col::null(), t::col::text("4")};
  auto wider = three_columns;
  wider.push_back({"added", 23, -1, false});
  const auto s = t::stream_start(800, true);
  const auto e = t::stream_stop();

  // Transaction 800 streams with a new column (its own DDL, not committed yet).
  decode_as<po::stream_start_message>(d, s);
  const auto r = t::relation(801, t1, "public", "t1", 'd', wider);
  const auto rel = decode_as<po::relation_message>(d, r);
  BOOST_TEST_REQUIRE(rel.change != nullptr);  // classified against what the session used so far
  BOOST_TEST(rel.change->kind == replicant::schema_change_kind::additive);
  BOOST_TEST(rel.xid == std::optional<std::uint32_t>{801});
  BOOST_TEST(decode_as<po::insert_message>(d, t::insert(801, t1, four)).relation->columns.size() == 4U);
  BOOST_TEST(d.find_relation(t1)->columns.size() == 4U);
  decode_as<po::stream_stop_message>(d, e);

  // Meanwhile committed transactions still use the old shape.
  BOOST_TEST(d.find_relation(t1)->columns.size() == 3U);
  const auto old_shape = t::insert(std::nullopt, t1, three);
  BOOST_TEST(decode_as<po::insert_message>(d, old_shape).relation->columns.size() == 3U);
  BOOST_TEST(error_of(d, t::insert(std::nullopt, t1, four)) == replicant::errc::protocol_violation);

  // A later block of 800 still sees its own shape without a new Relation.
  const auto s2 = t::stream_start(800, false);
  decode_as<po::stream_start_message>(d, s2);
  BOOST_TEST(d.decode(t::insert(800, t1, four)).has_value());
  decode_as<po::stream_stop_message>(d, e);

  // A subtransaction abort keeps the transaction's shape; the commit publishes it.
  decode_as<po::stream_abort_message>(d, t::stream_abort(800, 801));
  const auto s3 = t::stream_start(800, false);
  decode_as<po::stream_start_message>(d, s3);
  BOOST_TEST(d.decode(t::insert(800, t1, four)).has_value());
  decode_as<po::stream_stop_message>(d, e);
  decode_as<po::stream_commit_message>(d, t::stream_commit(800, lsn{1}, lsn{2}, ts));
  BOOST_TEST(d.find_relation(t1)->columns.size() == 4U);
  BOOST_TEST(decode_as<po::insert_message>(d, t::insert(std::nullopt, t1, four)).relation->columns.size() == 4U);
}

BOOST_AUTO_TEST_CASE(streamed_descriptions_are_dropped_on_abort_and_prepare) {
  for (const char end : {'A', 'p'}) {
    BOOST_TEST_CONTEXT("ended by " << end) {
      pgoutput_reader d = described(streaming_on);
      auto wider = three_columns;
      wider.push_back({"added", 23, -1, false});
      decode_as<po::stream_start_message>(d, t::stream_start(900, true));
      const auto r = t::relation(900, t1, "public", "t1", 'd', wider);
      decode_as<po::relation_message>(d, r);
      const auto y = t::type(900, 16392, "public", "mood");
      decode_as<po::type_message>(d, y);
      BOOST_TEST(d.find_type(16392) != nullptr);
      decode_as<po::stream_stop_message>(d, t::stream_stop());
      BOOST_TEST(d.find_type(16392) == nullptr);  // staged with the transaction
      if (end == 'A') {
        decode_as<po::stream_abort_message>(d, t::stream_abort(900, 900));
      } else {
        decode_as<po::stream_prepare_message>(d, t::prepare('p', lsn{1}, lsn{2}, ts, 900, "g"));
      }
      BOOST_TEST(d.find_relation(t1)->columns.size() == 3U);
      // Reusing the xid later starts from the committed shape.
      decode_as<po::stream_start_message>(d, t::stream_start(900, true));
      BOOST_TEST(d.find_relation(t1)->columns.size() == 3U);
      BOOST_TEST(d.find_type(16392) == nullptr);
      decode_as<po::stream_stop_message>(d, t::stream_stop());
    }
  }
}

BOOST_AUTO_TEST_CASE(streamed_types_are_published_on_commit) {
  pgoutput_reader d{streaming_on};
  decode_as<po::stream_start_message>(d, t::stream_start(5, true));
  decode_as<po::type_message>(d, t::type(5, 16392, "public", "mood"));
  decode_as<po::stream_stop_message>(d, t::stream_stop());
  BOOST_TEST(d.find_type(16392) == nullptr);
  decode_as<po::stream_commit_message>(d, t::stream_commit(5, lsn{1}, lsn{2}, ts));
  BOOST_TEST_REQUIRE(d.find_type(16392) != nullptr);
  BOOST_TEST(d.find_type(16392)->name == "mood");
}

BOOST_AUTO_TEST_CASE(reset_requires_new_descriptions_but_keeps_the_baseline) {
  pgoutput_reader d = described(parallel, true);
  const auto row = t::insert(std::nullopt, t1, {t::col::text("1"), t::col::null(), t::col::null()});
  d.reset();
  BOOST_TEST(!d.in_stream());
  BOOST_TEST(d.find_relation(t1) == nullptr);
  BOOST_TEST(error_of(d, row) == replicant::errc::protocol_violation);

  // Same shape in the new session: nothing to report, changes flow again.
  const auto r = t::relation(std::nullopt, t1, "public", "t1", 'd', three_columns);
  BOOST_TEST(decode_as<po::relation_message>(d, r).change == nullptr);
  BOOST_TEST(d.decode(row).has_value());

  // A column dropped while disconnected is still seen as destructive.
  d.reset();
  const auto narrower = t::relation(std::nullopt, t1, "public", "t1", 'd', {three_columns[0], three_columns[1]});
  const auto changed = decode_as<po::relation_message>(d, narrower);
  BOOST_TEST_REQUIRE(changed.change != nullptr);
  BOOST_TEST(changed.change->kind == replicant::schema_change_kind::destructive);
  BOOST_TEST(changed.change->changes[0].column == "big");

  // clear() forgets the baseline too.
  d.clear();
  BOOST_TEST(decode_as<po::relation_message>(d, r).change == nullptr);
}

BOOST_AUTO_TEST_CASE(protocol_settings_are_validated) {
  BOOST_TEST((pgoutput_protocol{1, pgoutput_streaming::off}.is_valid()));
  BOOST_TEST((pgoutput_protocol{2, pgoutput_streaming::on}.is_valid()));
  BOOST_TEST((pgoutput_protocol{4, pgoutput_streaming::parallel}.is_valid()));
  BOOST_TEST(!(pgoutput_protocol{0, pgoutput_streaming::off}.is_valid()));
  BOOST_TEST(!(pgoutput_protocol{5, pgoutput_streaming::off}.is_valid()));
  BOOST_TEST(!(pgoutput_protocol{1, pgoutput_streaming::on}.is_valid()));
  BOOST_TEST(!(pgoutput_protocol{3, pgoutput_streaming::parallel}.is_valid()));
  BOOST_TEST(pgoutput_reader{}.protocol().version == 4U);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // decoder_pgoutput_tests
