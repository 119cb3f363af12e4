// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The changes of a transaction, a snapshot batch and the typed views over them are views of both
// std::ranges and range-v3: the concepts hold, and filter/transform pipelines of either library
// give the same rows for a transaction held in memory, one spilled to a part, and one whose part
// cannot be read back (which ends the iteration without an exception and leaves its error in the
// transaction).
#include <replicant/model/rows.hpp>

#include <boost/test/unit_test.hpp>

#include "archetypes/spill_policy.hpp"
#include "support/common/std_views.hpp"
#include "support/sinks/spill_fixture.hpp"
#include "support/sinks/transaction_collector.hpp"

#include <replicant/assembler/assembler.hpp>
#include <replicant/model/transaction.hpp>
#include <replicant/snapshot/batch.hpp>

#include <boost/hana/define_struct.hpp>

#include <range/v3/range/concepts.hpp>
#include <range/v3/view/filter.hpp>
#include <range/v3/view/transform.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <utility>
#include <vector>

BOOST_AUTO_TEST_SUITE(model_rows_tests)

namespace pg = replicant::test;
using replicant::change;
using replicant::change_op;
using replicant::change_range;
using replicant::errc;
using replicant::lsn;
using replicant::result;
using replicant::snapshot_batch;
using replicant::table_ref;
using replicant::transaction;

namespace {

struct order {
  BOOST_HANA_DEFINE_STRUCT(order, (std::int64_t, id), (std::string, label));
};
struct order_key {
  BOOST_HANA_DEFINE_STRUCT(order_key, (std::int64_t, id));
};
struct wrong {  // the label is text, not a number
  BOOST_HANA_DEFINE_STRUCT(wrong, (std::int64_t, label));
};

using order_rows = replicant::table_rows_view<order, change_range, replicant::row_side::current>;
using batch_rows = replicant::table_rows_view<order, snapshot_batch, replicant::row_side::current>;

}  // namespace

// --- the concepts, in both libraries ----------------------------------------------------------------

// A transaction's changes: an input view (single pass: a spilled one is read back as it goes), not
// sized (a failed read ends it short of its count), viewable as a prvalue in both libraries.
#if REPLICANT_TEST_STD_RANGES
static_assert(std::ranges::input_range<change_range> && std::ranges::view<change_range>);
static_assert(std::ranges::viewable_range<change_range> && std::ranges::common_range<change_range>);
static_assert(!std::ranges::forward_range<change_range> && !std::ranges::sized_range<change_range>);
#endif
static_assert(std::semiregular<change_range> && std::semiregular<change_range::iterator>);
static_assert(ranges::input_range<change_range> && ranges::view_<change_range>);
static_assert(ranges::viewable_range<change_range> && !ranges::forward_range<change_range>);
static_assert(!ranges::sized_range<change_range>);
static_assert(ranges::input_iterator<change_range::iterator>);

// A snapshot batch: contiguous rows in memory, so random access and sized, and a view in both.
#if REPLICANT_TEST_STD_RANGES
static_assert(std::ranges::random_access_range<snapshot_batch> && std::ranges::sized_range<snapshot_batch>);
static_assert(std::ranges::view<snapshot_batch> && std::ranges::viewable_range<snapshot_batch>);
#endif
static_assert(ranges::random_access_range<snapshot_batch> && ranges::view_<snapshot_batch>);
static_assert(ranges::viewable_range<snapshot_batch> && ranges::sized_range<snapshot_batch>);

// The typed views: input over a transaction, forward over a batch; views in both libraries.
#if REPLICANT_TEST_STD_RANGES
static_assert(std::ranges::input_range<order_rows> && std::ranges::view<order_rows>);
static_assert(!std::ranges::forward_range<order_rows>);
#endif
#if REPLICANT_TEST_STD_RANGES
static_assert(std::same_as<std::ranges::range_reference_t<order_rows>, replicant::mapping_result<order>>);
#endif
static_assert(ranges::input_range<order_rows> && ranges::view_<order_rows> && ranges::viewable_range<order_rows>);
#if REPLICANT_TEST_STD_RANGES
static_assert(std::ranges::forward_range<batch_rows> && std::ranges::view<batch_rows>);
#endif
static_assert(ranges::forward_range<batch_rows> && ranges::view_<batch_rows>);

// What rows<T>() accepts: a transaction or a contiguous range of changes only as an lvalue.
static_assert(replicant::detail::change_source<const transaction&>);
static_assert(!replicant::detail::change_source<transaction&&>);
static_assert(replicant::detail::change_source<change_range> && replicant::detail::change_source<snapshot_batch>);
static_assert(replicant::detail::change_source<std::vector<change>&>);
static_assert(!replicant::detail::change_source<std::vector<change>>);
static_assert(!replicant::detail::change_source<std::vector<int>&>);

namespace {

constexpr table_ref orders{"public", "orders"};
constexpr std::uint32_t items_oid = 16385;

// An in-memory part whose reads stop working once @p fail_from bytes have been read (each read
// hands out at most 1000 bytes, so some changes come back before the failure).
class failing_part final : public replicant::spill_part {
 public:
  explicit failing_part(std::uint64_t fail_from) : fail_from_(fail_from) {}
  auto append(std::span<const std::byte> bytes) -> result<void> override { return inner_.append(bytes); }
  auto flush() -> result<void> override { return inner_.flush(); }
  auto read(std::uint64_t offset, std::span<std::byte> into) const -> result<std::size_t> override {
    if (offset >= fail_from_) return replicant::fail(errc::io_failed);
    return inner_.read(offset, into.first(std::min<std::size_t>(into.size(), 1000)));
  }
  auto truncate(std::uint64_t size) -> result<void> override { return inner_.truncate(size); }
  [[nodiscard]] auto size() const noexcept -> std::uint64_t override { return inner_.size(); }

 private:
  archetypes::memory_part inner_;
  std::uint64_t fail_from_;
};

// An in-memory part whose first read fails and whose later reads work (a transient fault).
class flaky_part final : public replicant::spill_part {
 public:
  auto append(std::span<const std::byte> bytes) -> result<void> override { return inner_.append(bytes); }
  auto flush() -> result<void> override { return inner_.flush(); }
  auto read(std::uint64_t offset, std::span<std::byte> into) const -> result<std::size_t> override {
    if (!failed_once_) {
      failed_once_ = true;
      return replicant::fail(errc::io_failed);
    }
    return inner_.read(offset, into);
  }
  auto truncate(std::uint64_t size) -> result<void> override { return inner_.truncate(size); }
  [[nodiscard]] auto size() const noexcept -> std::uint64_t override { return inner_.size(); }

 private:
  archetypes::memory_part inner_;
  mutable bool failed_once_ = false;
};

// One transaction: rows 1..n of orders, a row of another table after every tenth, then an update of
// row 2, a delete of row 3 and a truncate of the other table.
auto mixed_transaction(int n) -> std::vector<pg::bytes> {
  std::vector<pg::bytes> in{
      pg::begin(lsn{0x900}, 0, 7), pg::orders_relation(),
      pg::relation(std::nullopt, items_oid, "public", "items", 'd', {{"id", 23, -1, true}, {"label", 25, -1, false}})};
  for (int i = 1; i <= n; ++i) {
    in.push_back(pg::orders_insert(std::nullopt, i));
    if (i % 10 == 0) {
      in.push_back(pg::insert(std::nullopt, items_oid, {pg::col::text(std::to_string(i)), pg::col::text("item")}));
    }
  }
  in.push_back(pg::update(std::nullopt, pg::orders_oid, 0, {}, {pg::col::text("2"), pg::col::text("changed")}));
  in.push_back(pg::remove(std::nullopt, pg::orders_oid, 'K', {pg::col::text("3"), pg::col::null()}));
  in.push_back(pg::truncate(std::nullopt, 0, {items_oid}));
  in.push_back(pg::commit(lsn{0x900}, lsn{0x920}, 0));
  return in;
}

// The ids mixed_transaction(n) inserts and updates in orders, in order.
auto expected_order_ids(int n) -> std::vector<std::int64_t> {
  std::vector<std::int64_t> ids;
  for (int i = 1; i <= n; ++i) ids.push_back(i);
  ids.push_back(2);
  return ids;
}

// Assembles mixed_transaction(n): in memory, or spilled into parts that @p open makes.
auto assemble(int n, std::function<std::unique_ptr<replicant::spill_part>()> open = {}) -> transaction {
  replicant::assembler a;
  if (open) {
    a.enable_spill({2048, 1U << 30U}, [open]() -> result<std::unique_ptr<replicant::spill_part>> { return open(); });
  }
  pg::transaction_collector got;
  BOOST_TEST_REQUIRE(pg::feed(a, got, mixed_transaction(n)).has_value());
  BOOST_TEST_REQUIRE(got.transactions.size() == 1U);
  return std::move(got.transactions.front());
}

auto in_memory(int n) -> transaction { return assemble(n); }
auto spilled(int n) -> transaction {
  auto t = assemble(n, [] { return std::make_unique<archetypes::memory_part>(); });
  BOOST_TEST_REQUIRE(t.spilled_bytes() > 0U);
  return t;
}
auto unreadable(int n, std::uint64_t fail_from) -> transaction {
  auto t = assemble(n, [fail_from] { return std::make_unique<failing_part>(fail_from); });
  BOOST_TEST_REQUIRE(t.spilled_bytes() > fail_from);
  return t;
}

auto is_order_row(const change& c) -> bool {
  return c.relation().table == "orders" && (c.op() == change_op::insert || c.op() == change_op::update);
}
auto id_of(const change& c) -> std::int64_t { return c.record().value("id")->get<std::int64_t>(); }

// The ids through std::views::filter and std::views::transform.
auto ids_std(const transaction& t) -> std::vector<std::int64_t> {
  std::vector<std::int64_t> ids;
#if REPLICANT_TEST_STD_RANGES
  for (const std::int64_t id : t.changes() | std::views::filter(is_order_row) | std::views::transform(id_of)) {
    ids.push_back(id);
  }
#else  // this toolchain cannot compile std::views at all (support/common/std_views.hpp): range-v3 again
  for (const std::int64_t id : t.changes() | ranges::views::filter(is_order_row) | ranges::views::transform(id_of)) {
    ids.push_back(id);
  }
#endif
  return ids;
}

// The same through range-v3's views.
auto ids_range_v3(const transaction& t) -> std::vector<std::int64_t> {
  std::vector<std::int64_t> ids;
  for (const std::int64_t id : t.changes() | ranges::views::filter(is_order_row) | ranges::views::transform(id_of)) {
    ids.push_back(id);
  }
  return ids;
}

// The ids of the typed view, filtered and transformed by either library.
auto typed_ids(const transaction& t) -> std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>> {
  auto ok = [](const replicant::mapping_result<order>& o) { return o.has_value(); };
  auto id = [](const replicant::mapping_result<order>& o) { return o->id; };
  std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>> out;
#if REPLICANT_TEST_STD_RANGES
  for (const std::int64_t i : replicant::rows<order>(t, orders) | std::views::filter(ok) | std::views::transform(id)) {
    out.first.push_back(i);
  }
#else  // as in ids_std
  for (const std::int64_t i :
       replicant::rows<order>(t, orders) | ranges::views::filter(ok) | ranges::views::transform(id)) {
    out.first.push_back(i);
  }
#endif
  for (const std::int64_t i :
       replicant::rows<order>(t, orders) | ranges::views::filter(ok) | ranges::views::transform(id)) {
    out.second.push_back(i);
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(change_range_views)

BOOST_AUTO_TEST_CASE(filter_and_transform_work_with_both_libraries_in_memory_and_spilled) {
  for (const bool spill : {false, true}) {
    BOOST_TEST_CONTEXT("spilled " << spill) {
      const auto t = spill ? spilled(300) : in_memory(300);
      BOOST_TEST(ids_std(t) == expected_order_ids(300), boost::test_tools::per_element());
      BOOST_TEST(ids_range_v3(t) == expected_order_ids(300), boost::test_tools::per_element());
      BOOST_TEST(!t.read_error());
      BOOST_TEST(!t.changes().read_error());
    }
  }
}

BOOST_AUTO_TEST_CASE(a_copy_of_the_range_starts_afresh_and_iterating_again_reads_the_part_again) {
  const auto t = spilled(200);
  const change_range r = t.changes();
  auto it = r.begin();
  ++it;
  ++it;
  const change_range copy = r;  // made mid-iteration: carries none of r's reading state
  std::size_t n = 0;
  for ([[maybe_unused]] const change& c : copy) ++n;
  BOOST_TEST(n == t.change_count());
  BOOST_TEST(id_of(*it) == 3);  // r's own iteration went on undisturbed
  BOOST_TEST(ids_std(t) == expected_order_ids(200), boost::test_tools::per_element());
  BOOST_TEST(!t.changes().empty());
  BOOST_TEST(change_range{}.empty());
  BOOST_TEST((change_range{}.begin() == change_range{}.end()));
}

BOOST_AUTO_TEST_CASE(a_part_that_cannot_be_read_back_ends_every_view_early_without_an_exception) {
  const auto t = unreadable(300, 5000);
  std::vector<std::int64_t> ids;
  BOOST_CHECK_NO_THROW(ids = ids_std(t));
  BOOST_TEST(!ids.empty());
  BOOST_TEST(ids.size() < 300U, "the iteration ended at the failed read");
  BOOST_TEST(t.read_error() == errc::io_failed);
  BOOST_TEST(t.changes().read_error() == errc::io_failed);  // any range of it tells
  std::vector<std::int64_t> again;
  BOOST_CHECK_NO_THROW(again = ids_range_v3(t));
  BOOST_TEST(again == ids, boost::test_tools::per_element());
  std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>> typed;
  BOOST_CHECK_NO_THROW(typed = typed_ids(t));
  BOOST_TEST(typed.first == ids, boost::test_tools::per_element());
  BOOST_TEST(typed.second == ids, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_part_that_fails_at_once_gives_an_empty_iteration_and_its_error) {
  const auto t = unreadable(300, 0);
  std::size_t n = 0;
  for ([[maybe_unused]] const change& c : t.changes()) ++n;
  BOOST_TEST(n == 0U);
  BOOST_TEST(t.read_error() == errc::io_failed);
}

BOOST_AUTO_TEST_CASE(after_a_failed_read_the_error_stays_and_a_later_pass_still_reads_everything) {
  const auto t = assemble(300, [] { return std::make_unique<flaky_part>(); });
  BOOST_TEST(ids_std(t).empty());
  BOOST_TEST(t.read_error() == errc::io_failed);
  // The part works again: a second pass gives every change, the in-memory tail included, and the
  // transaction is still marked (the pipeline never trusts it once a read failed).
  BOOST_TEST(ids_range_v3(t) == expected_order_ids(300), boost::test_tools::per_element());
  BOOST_TEST(t.read_error() == errc::io_failed);
}

BOOST_AUTO_TEST_CASE(a_transaction_in_memory_has_no_read_error) {
  const auto t = in_memory(5);
  BOOST_TEST(!t.read_error());
  BOOST_TEST(!t.changes().read_error());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(table_rows_view)

BOOST_AUTO_TEST_CASE(rows_yield_the_new_rows_of_one_table_mapped_in_memory_and_spilled) {
  for (const bool spill : {false, true}) {
    BOOST_TEST_CONTEXT("spilled " << spill) {
      const auto t = spill ? spilled(300) : in_memory(300);
      const auto [std_ids, v3_ids] = typed_ids(t);
      BOOST_TEST(std_ids == expected_order_ids(300), boost::test_tools::per_element());
      BOOST_TEST(v3_ids == expected_order_ids(300), boost::test_tools::per_element());
      std::vector<std::string> labels;
      for (const auto& o : replicant::rows<order>(t, orders)) {
        BOOST_TEST_REQUIRE(o.has_value());
        labels.push_back(o->label);
      }
      BOOST_TEST_REQUIRE(labels.size() == 301U);
      BOOST_TEST(labels.back() == "changed");
      BOOST_TEST(labels.front() == std::string(100, 'x'));
    }
  }
}

BOOST_AUTO_TEST_CASE(deleted_rows_yield_the_old_keys_of_one_table) {
  for (const bool spill : {false, true}) {
    BOOST_TEST_CONTEXT("spilled " << spill) {
      const auto t = spill ? spilled(300) : in_memory(300);
      std::vector<std::int64_t> keys;
      for (const auto& k : replicant::deleted_rows<order_key>(t, orders)) {
        BOOST_TEST_REQUIRE(k.has_value());
        keys.push_back(k->id);
      }
      BOOST_TEST(keys == std::vector<std::int64_t>{3}, boost::test_tools::per_element());
      // The whole row is not in a key: mapping it says so, it is not skipped.
      std::size_t failures = 0;
      for (const auto& o : replicant::deleted_rows<order>(t, orders)) {
        if (!o) ++failures;
      }
      BOOST_TEST(failures == 1U);
    }
  }
}

BOOST_AUTO_TEST_CASE(rows_of_another_table_or_a_table_without_changes) {
  const auto t = in_memory(30);
  std::size_t items = 0;
  for (const auto& i : replicant::rows<order>(t, table_ref{"public", "items"})) {
    BOOST_TEST(i.has_value());
    ++items;
  }
  BOOST_TEST(items == 3U);  // rows 10, 20, 30; the truncate is not a row
  BOOST_TEST(ranges::distance(replicant::rows<order>(t, table_ref{"other", "orders"})) == 0);
  BOOST_TEST(ranges::distance(replicant::deleted_rows<order_key>(t, table_ref{"public", "items"})) == 0);
}

BOOST_AUTO_TEST_CASE(a_row_that_does_not_map_is_yielded_as_its_error) {
  const auto t = in_memory(3);
  std::size_t failures = 0;
  for (const auto& w : replicant::rows<wrong>(t, orders)) {
    BOOST_TEST_REQUIRE(!w.has_value());
    BOOST_TEST(w.error() == errc::type_mismatch);
    BOOST_TEST(w.error().member == "label");
    ++failures;
  }
  BOOST_TEST(failures == 4U);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(snapshot_batch_views)

BOOST_AUTO_TEST_CASE(a_batch_composes_with_both_libraries_and_the_typed_view) {
  const auto t = in_memory(20);
  std::vector<change> rows;
  for (const change& c : t.changes()) {
    if (is_order_row(c) && c.op() == change_op::insert) rows.push_back(c);
  }
  const snapshot_batch batch{rows.front().relation(), rows};
  std::vector<std::int64_t> from_std;
#if REPLICANT_TEST_STD_RANGES
  for (const std::int64_t id :
       batch | std::views::filter([](const change& c) { return id_of(c) % 2 == 0; }) | std::views::transform(id_of)) {
    from_std.push_back(id);
  }
#else  // as in ids_std
  for (const std::int64_t id : batch | ranges::views::filter([](const change& c) { return id_of(c) % 2 == 0; }) |
                                   ranges::views::transform(id_of)) {
    from_std.push_back(id);
  }
#endif
  std::vector<std::int64_t> from_v3;
  for (const std::int64_t id : batch | ranges::views::filter([](const change& c) { return id_of(c) % 2 == 0; }) |
                                   ranges::views::transform(id_of)) {
    from_v3.push_back(id);
  }
  const std::vector<std::int64_t> even{2, 4, 6, 8, 10, 12, 14, 16, 18, 20};
  BOOST_TEST(from_std == even, boost::test_tools::per_element());
  BOOST_TEST(from_v3 == even, boost::test_tools::per_element());
  std::vector<std::int64_t> typed;
  for (const auto& o : replicant::rows<order>(batch, batch.table()) |
                           ranges::views::transform([](const auto& r) { return r.value().id; })) {
    typed.push_back(o);
  }
  BOOST_TEST(typed.size() == 20U);
  BOOST_TEST(ranges::distance(replicant::rows<order>(rows, orders)) == 20);
  // Forward over a batch: a second pass gives the same rows.
  const auto view = replicant::rows<order>(batch, orders);
  BOOST_TEST(ranges::distance(view) == ranges::distance(view));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // model_rows_tests
