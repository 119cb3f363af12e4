// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A user's checkpoint policy (examples/custom_policies/wal_bytes_checkpoint.hpp), written against
// the public concept only, works like the library's own: it models replicant::checkpoint_policy_for
// and a sink fits it through replicant::sink_for; its delivery, driven as the pipeline drives it,
// writes the store exactly by the WAL-bytes rule, the timer and a flush, reports durable only what
// the store holds, and halts for its own reason (wal_bytes_store_failed) when the store fails.
#include "../../../examples/custom_policies/wal_bytes_checkpoint.hpp"

#include <boost/test/unit_test.hpp>

#include "../../../examples/custom_policies/line_sink.hpp"
#include "../../../examples/custom_policies/mmap_spill.hpp"
#include "archetypes/sink.hpp"
#include "support/common/temp_dir.hpp"
#include "support/sinks/transaction_collector.hpp"
#include "support/wire/pgoutput_builder.hpp"

#include <replicant/assembler/assembler.hpp>
#include <replicant/checkpoint/file_store.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/pipeline.hpp>
#include <replicant/pipeline/sink_for.hpp>
#include <replicant/testing/explore.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

BOOST_AUTO_TEST_SUITE(examples_wal_bytes_checkpoint_tests)

namespace pg = replicant::test;
using replicant::lsn;
using replicant::result;

namespace wal_bytes_test {

// A store in memory that records every write, and fails once told to.
struct memory_store {
  std::optional<lsn> at;
  std::vector<lsn> writes;
  bool failing = false;
  auto read(const replicant::slot_name&) -> result<std::optional<lsn>> {
    if (failing) return replicant::fail(replicant::errc::io_failed);
    return at;
  }
  auto write(const replicant::slot_name&, lsn to) -> result<void> {
    if (failing) return replicant::fail(replicant::errc::io_failed);
    at = to;
    writes.push_back(to);
    return {};
  }
};

// A library-owned-style sink: takes transactions, keeps no checkpoint.
struct counting_sink {
  std::vector<lsn> received;
  auto handle_transaction(const replicant::transaction& t) -> result<void> {
    received.push_back(t.commit_lsn());
    return {};
  }
};

using policy = custom_policies::wal_bytes_checkpoint<memory_store>;
static_assert(replicant::checkpoint_policy_for<policy, counting_sink>);
static_assert(replicant::sink_for<replicant::pgoutput_decoder, policy, counting_sink>);

}  // namespace wal_bytes_test

// The pipeline takes it, with the custom spill policy: one of them compiles, its whole run loop
// included (as in mmap_spill.cpp, not by explicit instantiation).
[[maybe_unused]] void run_a_pipeline_of_it(wal_bytes_test::counting_sink& sink,
                                           const replicant::pipeline_options& options) {
  replicant::pgoutput_pipeline<wal_bytes_test::counting_sink, wal_bytes_test::policy, custom_policies::mmap_spill> p{
      sink, replicant::pgoutput_options{}, options};
  p.run();
}

namespace {

using wal_bytes_test::counting_sink;
using wal_bytes_test::memory_store;
using wal_bytes_test::policy;

// The example program's combination.
using file_policy = custom_policies::wal_bytes_checkpoint<replicant::file_checkpoint_store>;
static_assert(replicant::checkpoint_policy_for<file_policy, custom_policies::line_sink>);
static_assert(replicant::sink_for<replicant::pgoutput_decoder, file_policy, custom_policies::line_sink>);
static_assert(replicant::detail::check_sink<custom_policies::line_sink, file_policy>());
static_assert(replicant::spill_policy<custom_policies::mmap_spill>);

// A sink-owned sink keeps its own checkpoint: refused, as lib_owned_checkpoint refuses it.
static_assert(!replicant::sink_for<replicant::pgoutput_decoder, file_policy, archetypes::sink>);
static_assert(!file_policy::accepts<archetypes::sink>);

// The engine's side, as the pipeline provides it, recording what the policy reports.
struct fake_engine final : replicant::detail::delivery_services {
  std::vector<std::pair<lsn, lsn>> durable;
  std::vector<replicant::halt> halts;
  bool stop = false;
  replicant::slot_name name = replicant::slot_name::make("orders_mirror").value();

  auto persisted(lsn commit, lsn end) -> void override { durable.emplace_back(commit, end); }
  auto release(replicant::transaction&&) noexcept -> void override {}
  auto halt_with(replicant::halt h) -> void override { halts.push_back(std::move(h)); }
  [[nodiscard]] auto halted() const noexcept -> bool override { return !halts.empty(); }
  auto keep_exception(std::exception_ptr) noexcept -> void override {}
  [[nodiscard]] auto spill_failure() const noexcept -> std::error_code override { return {}; }
  auto sleep(std::chrono::milliseconds) noexcept -> void override {}
  [[nodiscard]] auto stopping() const noexcept -> bool override { return stop; }
  auto writing(bool) noexcept -> void override {}
  [[nodiscard]] auto slot() const noexcept -> const replicant::slot_name& override { return name; }
  [[nodiscard]] auto budget() const noexcept -> std::size_t override { return 1U << 20U; }
  [[nodiscard]] auto events() const noexcept -> replicant::telemetry::dispatcher* override { return nullptr; }
  [[nodiscard]] auto now() const noexcept -> std::chrono::steady_clock::time_point override {
    return std::chrono::steady_clock::now();
  }
};

// A policy's delivery driven as the pipeline drives it, over transactions of one row each.
struct harness {
  policy settings;
  fake_engine engine;
  counting_sink sink;
  replicant::checkpoint_context<counting_sink> ctx{engine, sink};
  policy::delivery<counting_sink> delivery{settings};
  replicant::assembler assembler;
  std::uint32_t xid = 100;
  bool described = false;

  explicit harness(std::uint64_t every_bytes, std::optional<lsn> stored = std::nullopt)
      : settings{.store = memory_store{.at = stored, .writes = {}, .failing = false},
                 .every_bytes = every_bytes,
                 .max_delay = std::chrono::seconds(1)} {}

  // Delivers a transaction committed at @p commit; the result of deliver().
  auto commit(std::uint64_t commit) -> result<void> {
    std::vector<pg::bytes> in{pg::begin(lsn{commit}, 0, ++xid)};
    if (!described) {
      in.push_back(pg::relation(std::nullopt, 16384, "public", "orders", 'd', {{"id", 23, -1, true}}));
      described = true;
    }
    in.push_back(pg::insert(std::nullopt, 16384, {pg::col::text(std::to_string(xid))}));
    in.push_back(pg::commit(lsn{commit}, lsn{commit + 0x30}, 0));
    result<void> delivered;
    auto on = pg::transaction_visitor{[&](replicant::transaction&& t) -> result<void> {
      delivered = delivery.deliver(ctx, std::move(t));
      return {};
    }};
    for (const auto& m : in) BOOST_TEST_REQUIRE(assembler.push(m, on).has_value());
    return delivered;
  }
  [[nodiscard]] auto writes() const -> const std::vector<lsn>& { return settings.store.writes; }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(wal_bytes_checkpoint)

BOOST_AUTO_TEST_CASE(writes_once_the_delivered_transactions_span_every_bytes_of_wal) {
  harness h{0x1000};
  const auto resumed = h.delivery.resume(h.ctx);
  BOOST_TEST_REQUIRE(resumed.has_value());
  BOOST_TEST(!resumed->has_value());
  // No checkpoint yet: the first transaction is the base.
  for (const std::uint64_t at : {0x10000U, 0x10400U, 0x10800U, 0x10FFFU}) BOOST_TEST(h.commit(at).has_value());
  BOOST_TEST(h.writes().empty(), "less than 0x1000 bytes of WAL");
  BOOST_TEST(h.engine.durable.empty(), "nothing is durable before the store has it");
  BOOST_TEST(h.delivery.holding());
  BOOST_TEST(h.delivery.due().has_value());
  BOOST_TEST(h.commit(0x11000).has_value());  // exactly 0x1000 past the base
  BOOST_TEST_REQUIRE(h.writes().size() == 1U);
  BOOST_TEST((h.writes()[0] == lsn{0x11000}));
  BOOST_TEST_REQUIRE(h.engine.durable.size() == 1U);
  BOOST_TEST((h.engine.durable[0] == std::pair{lsn{0x11000}, lsn{0x11030}}));
  BOOST_TEST(!h.delivery.holding());
  BOOST_TEST(!h.delivery.due().has_value());
  // The base is now the checkpoint written.
  BOOST_TEST(h.commit(0x11FFF).has_value());
  BOOST_TEST(h.writes().size() == 1U);
  BOOST_TEST(h.commit(0x12000).has_value());
  BOOST_TEST(h.writes().size() == 2U);
  BOOST_TEST(h.sink.received.size() == 7U);
}

BOOST_AUTO_TEST_CASE(resumes_from_the_store_and_measures_from_its_checkpoint) {
  harness h{0x1000, lsn{0x50000}};
  const auto resumed = h.delivery.resume(h.ctx);
  BOOST_TEST_REQUIRE(resumed.has_value());
  BOOST_TEST((*resumed == lsn{0x50000}));
  BOOST_TEST(h.commit(0x50800).has_value());
  BOOST_TEST(h.writes().empty());
  BOOST_TEST(h.commit(0x51000).has_value());
  BOOST_TEST(h.writes().size() == 1U);
}

BOOST_AUTO_TEST_CASE(the_timer_and_a_flush_write_what_the_rule_has_not) {
  harness h{0x100000};
  BOOST_TEST_REQUIRE(h.delivery.resume(h.ctx).has_value());
  BOOST_TEST(h.commit(0x10000).has_value());
  BOOST_TEST(h.commit(0x10100).has_value());
  const auto due = h.delivery.due();
  BOOST_TEST_REQUIRE(due.has_value());
  BOOST_TEST(h.delivery.tick(h.ctx, *due - std::chrono::milliseconds(1)).has_value());
  BOOST_TEST(h.writes().empty(), "not due yet");
  BOOST_TEST(h.delivery.tick(h.ctx, *due).has_value());
  BOOST_TEST_REQUIRE(h.writes().size() == 1U);
  BOOST_TEST((h.writes()[0] == lsn{0x10100}));
  BOOST_TEST(h.commit(0x10200).has_value());
  BOOST_TEST(h.delivery.flush(h.ctx).has_value());
  BOOST_TEST(h.writes().size() == 2U);
  BOOST_TEST(h.delivery.flush(h.ctx).has_value());
  BOOST_TEST(h.writes().size() == 2U, "nothing new: nothing written");
  BOOST_TEST(h.engine.durable.size() == 2U);
}

BOOST_AUTO_TEST_CASE(a_failed_store_write_halts_for_the_policy_s_own_reason_and_reports_nothing_durable) {
  harness h{0x1000};
  BOOST_TEST_REQUIRE(h.delivery.resume(h.ctx).has_value());
  BOOST_TEST(h.commit(0x10000).has_value());
  h.settings.store.failing = true;
  const auto r = h.commit(0x20000);
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST(r.error() == replicant::errc::halted);
  BOOST_TEST_REQUIRE(h.engine.halts.size() == 1U);
  BOOST_TEST((h.engine.halts[0].reason == replicant::halt_reason::policy_halted));
  BOOST_TEST((h.engine.halts[0].own == &custom_policies::wal_bytes_store_failed));
  BOOST_TEST(h.engine.halts[0].cause == replicant::errc::io_failed);
  BOOST_TEST(h.engine.durable.empty());
}

BOOST_AUTO_TEST_CASE(a_failed_store_write_while_stopping_ends_quietly_and_is_not_tried_again) {
  harness h{0x100000};
  BOOST_TEST_REQUIRE(h.delivery.resume(h.ctx).has_value());
  BOOST_TEST(h.commit(0x10000).has_value());
  h.settings.store.failing = true;
  h.engine.stop = true;
  BOOST_TEST(h.delivery.flush(h.ctx).has_value());
  BOOST_TEST(h.engine.halts.empty(), "the session ends anyway");
  h.settings.store.failing = false;
  BOOST_TEST(h.delivery.flush(h.ctx).has_value());
  BOOST_TEST(h.writes().empty(), "not tried again in this session");
  BOOST_TEST(h.engine.durable.empty());
}

BOOST_AUTO_TEST_CASE(a_failed_store_read_halts_for_the_policy_s_own_reason) {
  harness h{0x1000};
  h.settings.store.failing = true;
  BOOST_TEST(!h.delivery.resume(h.ctx).has_value());
  BOOST_TEST_REQUIRE(h.engine.halts.size() == 1U);
  BOOST_TEST((h.engine.halts[0].reason == replicant::halt_reason::policy_halted));
  BOOST_TEST((h.engine.halts[0].own == &custom_policies::wal_bytes_store_failed));
}

// The policy proved with the library's simulator (docs/checkpoint/writing_a_policy.md, "Prove it"),
// with the example's own spill policy: at least once, a crash or a halt repeating at most the
// transactions the WAL-bytes rule had not covered yet (here at most four: 0x200 bytes of WAL).
BOOST_AUTO_TEST_CASE(keeps_at_least_once_under_the_simulator) {
  namespace rt = replicant::testing;
  struct ledger {
    std::vector<rt::stored_transaction> stored;
    std::optional<lsn> checkpoint;
  };
  using sim = rt::simulation<ledger>;
  struct ledger_store {
    ledger* l;
    sim* s;
    auto read(const replicant::slot_name&) -> result<std::optional<lsn>> { return l->checkpoint; }
    auto write(const replicant::slot_name&, lsn at) -> result<void> {
      s->crash_point();
      l->checkpoint = at;
      s->crash_point();
      return {};
    }
  };
  struct ledger_sink {
    ledger& l;
    sim& s;
    auto handle_transaction(const replicant::transaction& t) -> result<void> {
      if (s.fault() != rt::sink_fault::none) return replicant::fail(replicant::errc::sink_failed);
      std::size_t n = 0;
      for (const auto& c : t.changes()) n += c.record().empty() ? 0U : 1U;
      s.crash_point();
      l.stored.push_back({t.commit_lsn(), n});
      s.crash_point();
      return {};
    }
  };
  using policy = custom_policies::wal_bytes_checkpoint<ledger_store>;
  const pg::temp_dir dir{"wal-bytes-explore"};
  rt::explore_options o;
  o.random_schedules = 1000;
  o.promise = rt::guarantee::at_least_once;
  o.repeats_per_crash = 4;
  const auto found = rt::explore<policy, custom_policies::mmap_spill, ledger_sink, ledger>(
      {.sink = [](ledger& l, sim& s) { return std::make_unique<ledger_sink>(ledger_sink{l, s}); },
       .policy =
           [](ledger& l, sim& s) {
             return policy{.store = ledger_store{&l, &s}, .every_bytes = 0x200, .max_delay = std::chrono::hours(1)};
           },
       .stored = [](const ledger& l) { return l.stored; },
       .spill = [&dir] { return custom_policies::mmap_spill{.dir = dir.path(), .max_bytes = 0}; }},
      o);
  BOOST_TEST(static_cast<bool>(found), found.failure);
  BOOST_TEST(found.crashes > 0U);
}

BOOST_AUTO_TEST_CASE(refuses_settings_that_could_never_write) {
  BOOST_TEST(!(policy{.store = {}, .every_bytes = 0, .max_delay = std::chrono::seconds(1)}.valid()));
  BOOST_TEST(!(policy{.store = {}, .every_bytes = 1, .max_delay = std::chrono::milliseconds(0)}.valid()));
  BOOST_TEST((policy{.store = {}, .every_bytes = 1, .max_delay = std::chrono::milliseconds(1)}.valid()));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // examples_wal_bytes_checkpoint_tests
