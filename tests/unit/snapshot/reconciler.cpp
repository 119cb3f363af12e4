// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The watermark reconciler of the incremental snapshot, driven with hand-built transactions: the
// pgoutput messages a server would send, assembled by the library's own assembler.
#include <replicant/snapshot/detail/reconciler.hpp>

#include <boost/test/unit_test.hpp>

#include "support/wire/pgoutput_builder.hpp"

#include <replicant/assembler/assembler.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

BOOST_AUTO_TEST_SUITE(snapshot_reconciler_tests)

namespace pg = replicant::test;
using replicant::lsn;
using replicant::detail::incremental_reconciler;
using replicant::detail::snapshot_chunk;
using replicant::detail::snapshot_window;

namespace {

constexpr std::uint32_t items = 16384;
constexpr std::uint32_t other = 16390;
constexpr std::uint32_t int4 = 23;
constexpr std::uint32_t text = 25;
constexpr std::uint64_t nonce = 0x5eed'0000'1234'abcdULL;

// Keeps every transaction the assembler completes.
struct collector {
  std::vector<replicant::transaction> done;
  auto operator()(replicant::transaction&& t) -> replicant::result<void> {
    done.push_back(std::move(t));
    return {};
  }
  auto operator()(const replicant::logical_message&) -> replicant::result<void> { return {}; }
  auto operator()(const replicant::schema_change&) -> replicant::result<void> { return {}; }
  auto operator()(const replicant::empty_commit&) -> replicant::result<void> { return {}; }
  auto operator()(const replicant::prepared_event&) -> replicant::result<void> { return {}; }
  auto operator()(const replicant::rollback_prepared_event&) -> replicant::result<void> { return {}; }
  auto operator()(const replicant::stream_abort_event&) -> replicant::result<void> { return {}; }
};

// A stream of committed transactions on `items (id int key, label text)` and `other (id int key)`,
// with commit positions 0/1000, 0/2000, ... in order.
class stream {
 public:
  stream() {
    push(pg::begin(lsn{0x10}, 0, 1));
    push(pg::relation(std::nullopt, items, "public", "items", 'd',
                      {{"id", int4, -1, true}, {"label", text, -1, false}}));
    push(pg::relation(std::nullopt, other, "public", "other", 'd', {{"id", int4, -1, true}}));
    push(pg::commit(lsn{0x10}, lsn{0x20}, 0));
  }

  // One transaction of @p xid made of @p messages (pgoutput change messages, no Begin/Commit).
  auto txn(std::uint32_t xid, const std::vector<pg::bytes>& messages) -> replicant::transaction {
    position_ += 0x1000;
    push(pg::begin(lsn{position_}, 0, xid));
    for (const auto& m : messages) push(m);
    push(pg::commit(lsn{position_}, lsn{position_ + 0x10}, 0));
    BOOST_TEST_REQUIRE(sink_.done.size() == 1U);
    auto t = std::move(sink_.done.front());
    sink_.done.clear();
    return t;
  }

  // A transaction holding one watermark message.
  auto watermark(std::uint32_t xid, const replicant::detail::watermark& w) -> replicant::transaction {
    return txn(xid, {pg::message(std::nullopt, true, lsn{position_ + 0x1008}, replicant::detail::watermark_prefix,
                                 replicant::detail::format_watermark(w))});
  }

 private:
  auto push(const pg::bytes& m) -> void { BOOST_TEST_REQUIRE(assembler_.push(m, sink_).has_value()); }

  replicant::assembler assembler_;
  collector sink_;
  std::uint64_t position_ = 0;
};

auto upsert(std::int32_t id) -> pg::bytes {
  return pg::insert(std::nullopt, items, {pg::col::text(std::to_string(id)), pg::col::text("x")});
}
auto update_key(std::int32_t from, std::int32_t to) -> pg::bytes {
  return pg::update(std::nullopt, items, 'K', {pg::col::text(std::to_string(from)), pg::col::null()},
                    {pg::col::text(std::to_string(to)), pg::col::text("y")});
}
auto remove(std::int32_t id) -> pg::bytes {
  return pg::remove(std::nullopt, items, 'K', {pg::col::text(std::to_string(id)), pg::col::null()});
}

auto key(std::int32_t id) -> std::string {
  const std::string t = std::to_string(id);
  const std::string_view v[] = {t};
  return replicant::detail::encode_key(v);
}

// A chunk of `items` rows with the given ids (keys only matter here), read under @p snapshot.
auto chunk(std::vector<std::int32_t> ids, std::string_view snapshot, bool keyed = true) -> snapshot_chunk {
  snapshot_chunk c;
  c.keyed = keyed;
  for (const auto id : ids) {
    c.rows.row_ends.push_back(c.rows.row_ends.size());
    if (keyed) c.rows.keys.push_back(key(id));
  }
  c.snapshot = replicant::detail::xid_snapshot::parse(snapshot);
  BOOST_TEST_REQUIRE(c.snapshot.has_value());
  return c;
}

auto low(std::uint64_t seq, std::uint32_t epoch = 0, std::uint64_t n = nonce, std::uint32_t oid = items)
    -> replicant::detail::watermark {
  return {n, epoch, seq, true, oid};
}
auto high(std::uint64_t seq, std::uint32_t epoch = 0, std::uint64_t n = nonce, std::uint32_t oid = items)
    -> replicant::detail::watermark {
  return {n, epoch, seq, false, oid};
}

// The ids a reconciled chunk keeps.
auto kept(const snapshot_chunk& c, const std::vector<std::int32_t>& ids) -> std::vector<std::int32_t> {
  std::vector<std::int32_t> out;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (c.keep[i]) out.push_back(ids[i]);
  }
  return out;
}

// Opens and closes a window around @p inside, returning it.
auto window(stream& s, incremental_reconciler& r, const std::vector<std::vector<pg::bytes>>& inside,
            std::uint64_t seq = 1) -> snapshot_window {
  BOOST_TEST(!r.observe(s.watermark(900, low(seq))).closed.has_value());
  std::uint32_t xid = 1000;
  for (const auto& t : inside) BOOST_TEST(!r.observe(s.txn(xid++, t)).closed.has_value());
  const auto seen = r.observe(s.watermark(901, high(seq)));
  BOOST_TEST_REQUIRE(seen.closed.has_value());
  BOOST_TEST(seen.watermark_only);
  return *seen.closed;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(incremental_reconciler_)

BOOST_AUTO_TEST_CASE(drops_rows_touched_inside_the_window_and_keeps_the_rest) {
  stream s;
  incremental_reconciler r{nonce};
  r.track(items, {"id"});
  const auto w = window(s, r, {{upsert(2)}, {remove(4)}, {update_key(7, 5)}});
  BOOST_TEST(w.low < w.high);
  BOOST_TEST(w.table_oid == items);
  const std::vector<std::int32_t> ids{1, 2, 3, 4, 5, 6, 7};
  auto c = chunk(ids, "2000:2000:");  // saw everything that committed before it
  const auto out = r.reconcile(w, c, 100);
  BOOST_TEST(!out.contended);
  BOOST_TEST(out.dropped == 4U);
  BOOST_TEST(out.kept == 3U);
  BOOST_TEST((kept(c, ids) == std::vector<std::int32_t>{1, 3, 6}));
}

BOOST_AUTO_TEST_CASE(keeps_rows_changed_before_the_low_watermark_when_the_read_saw_the_change) {
  stream s;
  incremental_reconciler r{nonce};
  r.track(items, {"id"});
  r.observe(s.txn(150, {upsert(1)}));
  const auto w = window(s, r, {});
  const std::vector<std::int32_t> ids{1, 2};
  auto c = chunk(ids, "160:170:165");  // 150 < xmin: seen
  const auto out = r.reconcile(w, c, 100);
  BOOST_TEST(!out.contended);
  BOOST_TEST((kept(c, ids) == std::vector<std::int32_t>{1, 2}));
}

BOOST_AUTO_TEST_CASE(drops_rows_of_a_transaction_committed_before_the_low_watermark_but_invisible_to_the_read) {
  // The commit-visibility caveat: 150 wrote its commit record before the low watermark, but was
  // still in progress for the read (in xip), so the read shows the row as it was before 150.
  stream s;
  incremental_reconciler r{nonce};
  r.track(items, {"id"});
  r.observe(s.txn(150, {upsert(1)}));
  r.observe(s.txn(151, {upsert(2)}));
  r.observe(s.txn(152, {upsert(3)}));
  const auto w = window(s, r, {});
  const std::vector<std::int32_t> ids{1, 2, 3, 4};
  auto c = chunk(ids, "140:152:150");  // 150 in progress, 151 seen, 152 at or past xmax: unseen
  const auto out = r.reconcile(w, c, 100);
  BOOST_TEST(!out.contended);
  BOOST_TEST((kept(c, ids) == std::vector<std::int32_t>{2, 4}));
}

BOOST_AUTO_TEST_CASE(forgets_the_history_a_read_saw_and_keeps_what_it_did_not) {
  stream s;
  incremental_reconciler r{nonce};
  r.track(items, {"id"});
  r.observe(s.txn(150, {upsert(1)}));
  r.observe(s.txn(151, {upsert(2)}));
  BOOST_TEST(r.history_size() == 2U);
  auto w = window(s, r, {});
  auto c = chunk({1, 2}, "150:152:150");
  r.reconcile(w, c, 100);
  BOOST_TEST(r.history_size() == 1U);  // 150 is still unseen: the next chunk checks it too
  w = window(s, r, {}, 2);
  c = chunk({1, 2}, "150:152:150");
  r.reconcile(w, c, 100);
  BOOST_TEST((kept(c, {1, 2}) == std::vector<std::int32_t>{2}));
  w = window(s, r, {}, 3);
  c = chunk({1, 2}, "153:153:");
  r.reconcile(w, c, 100);
  BOOST_TEST((kept(c, {1, 2}) == std::vector<std::int32_t>{1, 2}));
  BOOST_TEST(r.history_size() == 0U);
}

BOOST_AUTO_TEST_CASE(a_truncate_inside_the_window_drops_every_row) {
  stream s;
  incremental_reconciler r{nonce};
  r.track(items, {"id"});
  const auto w = window(s, r, {{pg::truncate(std::nullopt, 0, {items})}});
  const std::vector<std::int32_t> ids{1, 2, 3};
  auto c = chunk(ids, "2000:2000:");
  const auto out = r.reconcile(w, c, 100);
  BOOST_TEST(!out.contended);
  BOOST_TEST(out.dropped == 3U);
  BOOST_TEST(kept(c, ids).empty());
}

BOOST_AUTO_TEST_CASE(dropping_more_rows_than_the_cap_makes_the_chunk_contended) {
  stream s;
  incremental_reconciler r{nonce};
  r.track(items, {"id"});
  const auto w = window(s, r, {{upsert(1), upsert(2), upsert(3)}});
  auto c = chunk({1, 2, 3, 4}, "2000:2000:");
  BOOST_TEST(r.reconcile(w, c, 2).contended);
  auto d = chunk({1, 2, 3, 4}, "2000:2000:");
  BOOST_TEST(!r.reconcile(w, d, 3).contended);
}

BOOST_AUTO_TEST_CASE(a_key_the_change_does_not_carry_makes_the_chunk_contended) {
  // An unchanged TOAST value in a key column: the key of the row is not in the change.
  stream s;
  incremental_reconciler r{nonce};
  r.track(items, {"id"});
  const auto w = window(s, r, {{pg::update(std::nullopt, items, 0, {}, {pg::col::unchanged(), pg::col::text("y")})}});
  auto c = chunk({1, 2}, "2000:2000:");
  BOOST_TEST(r.reconcile(w, c, 100).contended);
}

BOOST_AUTO_TEST_CASE(a_table_read_whole_is_contended_by_any_change_in_its_window) {
  stream s;
  incremental_reconciler r{nonce};
  r.track(items, {});  // no key
  auto w = window(s, r, {{upsert(9)}});
  auto c = chunk({1, 2}, "2000:2000:", false);
  BOOST_TEST(r.reconcile(w, c, 0).contended);
  w = window(s, r, {{pg::insert(std::nullopt, other, {pg::col::text("1")})}}, 2);
  c = chunk({1, 2}, "3000:3000:", false);
  BOOST_TEST(!r.reconcile(w, c, 0).contended);  // another table's change
  BOOST_TEST((kept(c, {1, 2}).size() == 2U));
}

BOOST_AUTO_TEST_CASE(records_only_tracked_tables) {
  stream s;
  incremental_reconciler r{nonce};
  r.track(items, {"id"});
  r.observe(s.txn(150, {pg::insert(std::nullopt, other, {pg::col::text("1")})}));
  BOOST_TEST(r.history_size() == 0U);
  r.observe(s.txn(151, {upsert(1)}));
  BOOST_TEST(r.history_size() == 1U);
  BOOST_TEST(r.tracking(items));
  r.untrack(items);
  BOOST_TEST(!r.tracking(items));
  r.observe(s.txn(152, {upsert(1)}));
  BOOST_TEST(r.history_size() == 1U);
}

BOOST_AUTO_TEST_CASE(ignores_the_watermarks_of_other_runs_and_of_discarded_epochs) {
  stream s;
  incremental_reconciler r{nonce};
  r.track(items, {"id"});
  // Another run's (a replayed one, or another pipeline's): not ours, but not for the sink either.
  auto seen = r.observe(s.watermark(900, low(1, 0, nonce + 1)));
  BOOST_TEST(seen.watermark_only);
  seen = r.observe(s.watermark(901, high(1, 0, nonce + 1)));
  BOOST_TEST(seen.watermark_only);
  BOOST_TEST(!seen.closed.has_value());

  // A window of epoch 0, then a rewind: its high watermark no longer closes anything.
  r.observe(s.watermark(902, low(1)));
  BOOST_TEST(r.rewind() == 1U);
  BOOST_TEST(!r.observe(s.watermark(903, high(1))).closed.has_value());
  BOOST_TEST(!r.observe(s.watermark(904, low(2))).closed.has_value());
  BOOST_TEST(!r.observe(s.watermark(905, high(2))).closed.has_value());
  // Epoch 1 works.
  r.observe(s.watermark(906, low(3, 1)));
  seen = r.observe(s.watermark(907, high(3, 1)));
  BOOST_TEST_REQUIRE(seen.closed.has_value());
  BOOST_TEST(seen.closed->epoch == 1U);
  BOOST_TEST(seen.closed->seq == 3U);
  // A high watermark of another sequence number does not close it.
  r.observe(s.watermark(908, low(4, 1)));
  BOOST_TEST(!r.observe(s.watermark(909, high(5, 1))).closed.has_value());
}

BOOST_AUTO_TEST_CASE(a_transaction_with_other_messages_or_changes_is_not_watermark_only) {
  stream s;
  incremental_reconciler r{nonce};
  auto t = s.txn(900, {pg::message(std::nullopt, true, lsn{1}, "app", "hello"),
                       pg::message(std::nullopt, true, lsn{2}, replicant::detail::watermark_prefix,
                                   replicant::detail::format_watermark(low(1)))});
  BOOST_TEST(!r.observe(t).watermark_only);
  BOOST_TEST(!r.observe(s.txn(901, {upsert(1)})).watermark_only);
  BOOST_TEST(!r.observe(s.txn(902, {pg::message(std::nullopt, true, lsn{3}, "app", "x")})).watermark_only);
}

BOOST_AUTO_TEST_CASE(a_read_that_failed_for_contention_is_contended) {
  stream s;
  incremental_reconciler r{nonce};
  r.track(items, {"id"});
  const auto w = window(s, r, {});
  snapshot_chunk c;
  c.read_contended = true;
  BOOST_TEST(r.reconcile(w, c, 100).contended);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // snapshot_reconciler_tests
