// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// docs/ranges.md, reading a transaction as ranges: its snippets compile here (the page quotes them
// verbatim), and the sink it shows logs the rows of a transaction held in memory and of one
// spilled to a part, and logs nothing of one whose part cannot be read back, returning the error.
#include <replicant/model/rows.hpp>

#include <boost/test/unit_test.hpp>

#include "archetypes/spill_policy.hpp"
#include "support/common/std_views.hpp"
#include "support/sinks/spill_fixture.hpp"
#include "support/sinks/transaction_collector.hpp"
#include "unit/docs/support.hpp"

#include <replicant/assembler/assembler.hpp>
#include <replicant/model/transaction.hpp>
#include <replicant/sink/concepts.hpp>

#include <boost/hana/define_struct.hpp>

#include <range/v3/view/filter.hpp>
#include <range/v3/view/transform.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

BOOST_AUTO_TEST_SUITE(docs_ranges_tests)

namespace pg = replicant::test;

// Where the toolchain cannot compile std::views (support/common/std_views.hpp) the snippet is not
// compiled.
#if REPLICANT_TEST_STD_RANGES
//[ranges_pipelines
// The tables a transaction inserted into, with std::views; the same with range-v3's views.
auto tables_inserted_into(const replicant::transaction& txn) -> std::vector<std::string_view> {
  auto is_insert = [](const replicant::change& c) { return c.op() == replicant::change_op::insert; };
  auto table_of = [](const replicant::change& c) -> std::string_view { return c.relation().table; };
  std::vector<std::string_view> tables;
  for (std::string_view t : txn.changes() | std::views::filter(is_insert) | std::views::transform(table_of)) {
    tables.push_back(t);
  }
  for (std::string_view t : txn.changes() | ranges::views::filter(is_insert) | ranges::views::transform(table_of)) {
    tables.push_back(t);
  }
  return tables;
}
//]
#endif

//[ranges_sink
struct order {
  BOOST_HANA_DEFINE_STRUCT(order, (std::int64_t, id), (std::string, label));
};
struct order_key {
  BOOST_HANA_DEFINE_STRUCT(order_key, (std::int64_t, id));
};

constexpr replicant::table_ref orders_table{"public", "orders"};

// An audit log of the orders table: the ids written (inserted or updated) and the ids deleted.
// What a transaction adds is kept only once the whole transaction was read.
struct orders_log_sink {
  std::vector<std::int64_t> written;
  std::vector<std::int64_t> deleted;
  std::optional<replicant::lsn> stored;

  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return stored; }

  auto handle_transaction(const replicant::transaction& txn) -> replicant::result<replicant::lsn> {
    if (stored && txn.commit_lsn() <= *stored) return txn.commit_lsn();
    std::vector<std::int64_t> w;
    for (const auto& row : replicant::rows<order>(txn, orders_table)) {
      if (!row) return replicant::unexpected(row.error());  // names the member and column, no value
      w.push_back(row->id);
    }
    std::vector<std::int64_t> d;
    for (const auto& key : replicant::deleted_rows<order_key>(txn, orders_table)) {
      if (!key) return replicant::unexpected(key.error());
      d.push_back(key->id);
    }
    if (const auto ec = txn.read_error()) return replicant::unexpected(ec);  // keep nothing of it
    written.insert(written.end(), w.begin(), w.end());
    deleted.insert(deleted.end(), d.begin(), d.end());
    stored = txn.commit_lsn();
    return txn.commit_lsn();
  }
};
//]

namespace {

// An in-memory part whose every read fails.
class unreadable_part final : public replicant::spill_part {
 public:
  auto append(std::span<const std::byte> bytes) -> replicant::result<void> override { return inner_.append(bytes); }
  auto flush() -> replicant::result<void> override { return inner_.flush(); }
  auto read(std::uint64_t /*offset*/, std::span<std::byte> /*into*/) const -> replicant::result<std::size_t> override {
    return replicant::fail(replicant::errc::io_failed);
  }
  auto truncate(std::uint64_t size) -> replicant::result<void> override { return inner_.truncate(size); }
  [[nodiscard]] auto size() const noexcept -> std::uint64_t override { return inner_.size(); }

 private:
  archetypes::memory_part inner_;
};

// Rows 1..n of orders, then row 2 deleted; spilled into parts from @p open when it is set.
auto orders_transaction(int n, const std::function<std::unique_ptr<replicant::spill_part>()>& open = {})
    -> replicant::transaction {
  replicant::assembler a;
  if (open) {
    a.enable_spill({2048, 1U << 30U},
                   [open]() -> replicant::result<std::unique_ptr<replicant::spill_part>> { return open(); });
  }
  std::vector<pg::bytes> in{pg::begin(replicant::lsn{0x900}, 0, 7), pg::orders_relation()};
  for (int i = 1; i <= n; ++i) in.push_back(pg::orders_insert(std::nullopt, i));
  in.push_back(pg::remove(std::nullopt, pg::orders_oid, 'K', {pg::col::text("2"), pg::col::null()}));
  in.push_back(pg::commit(replicant::lsn{0x900}, replicant::lsn{0x920}, 0));
  pg::transaction_collector got;
  BOOST_TEST_REQUIRE(pg::feed(a, got, in).has_value());
  BOOST_TEST_REQUIRE(got.transactions.size() == 1U);
  return std::move(got.transactions.front());
}

}  // namespace

static_assert(replicant::sink<orders_log_sink>);

BOOST_AUTO_TEST_CASE(the_page_quotes_its_compiled_snippets) {
  docs_support::require_quoted(docs_support::read_text(__FILE__), "docs/ranges.md");
}

#if REPLICANT_TEST_STD_RANGES
BOOST_AUTO_TEST_CASE(the_pipelines_of_both_libraries_agree) {
  const auto t = orders_transaction(3);
  const auto tables = tables_inserted_into(t);
  BOOST_TEST(tables == (std::vector<std::string_view>{"orders", "orders", "orders", "orders", "orders", "orders"}),
             boost::test_tools::per_element());
}
#endif

BOOST_AUTO_TEST_CASE(the_sink_stores_a_transaction_in_memory_or_spilled) {
  for (const bool spill : {false, true}) {
    BOOST_TEST_CONTEXT("spilled " << spill) {
      const auto t = spill ? orders_transaction(200, [] { return std::make_unique<archetypes::memory_part>(); })
                           : orders_transaction(200);
      BOOST_TEST((t.spilled_bytes() > 0U) == spill);
      orders_log_sink sink;
      const auto stored = sink.handle_transaction(t);
      BOOST_TEST_REQUIRE(stored.has_value());
      BOOST_TEST(*stored == t.commit_lsn());
      std::vector<std::int64_t> all(200);
      std::iota(all.begin(), all.end(), std::int64_t{1});
      BOOST_TEST(sink.written == all, boost::test_tools::per_element());
      BOOST_TEST(sink.deleted == std::vector<std::int64_t>{2}, boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(the_sink_stores_nothing_of_a_transaction_it_could_not_read_and_returns_why) {
  const auto t = orders_transaction(200, [] { return std::make_unique<unreadable_part>(); });
  orders_log_sink sink;
  replicant::result<replicant::lsn> stored = replicant::lsn{};
  BOOST_CHECK_NO_THROW(stored = sink.handle_transaction(t));
  BOOST_TEST_REQUIRE(!stored.has_value());
  BOOST_TEST(stored.error() == replicant::errc::io_failed);
  BOOST_TEST(sink.written.empty());
  BOOST_TEST(sink.deleted.empty());
  BOOST_TEST(!sink.stored.has_value());
}

BOOST_AUTO_TEST_SUITE_END()  // docs_ranges_tests
