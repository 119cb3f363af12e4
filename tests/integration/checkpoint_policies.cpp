// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The checkpoint policies against a real server, once per PostgreSQL major: a library-owned
// checkpoint (written after the sink returns, per transaction or batched, with store faults retried
// then halting) and sink-owned atomic batches (bounded by size, delay and stop; a failed batch
// acknowledged not at all). The store here is an in-memory one with switchable faults, so that
// every fault is exact; the real stores have tests of their own.
#include <replicant/pipeline.hpp>

#include <boost/test/unit_test.hpp>

#include "support/server/pg_cluster.hpp"
#include "support/sinks/live_pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(checkpoint_policies_tests)

namespace utf = boost::unit_test;
using namespace std::chrono_literals;
using replicant::halt_reason;
using replicant::lsn;
using replicant::result;
using replicant::test::event_log;
using replicant::test::running;
using replicant::test::wait_until;

namespace {

constexpr std::string_view secret = "s3cr3t-VALUE-0815";

// What a fault_store holds, owned by the test so that it outlives pipelines and can be inspected.
struct store_state {
  std::mutex mutex;
  std::map<std::string, lsn> checkpoints;
  int failing_writes = 0;                     // this many writes fail (transiently) before one succeeds
  std::optional<replicant::errc> read_error;  // every read fails with it
  int writes = 0;

  auto value(const std::string& slot) -> std::optional<lsn> {
    const std::lock_guard lock{mutex};
    if (auto it = checkpoints.find(slot); it != checkpoints.end()) return it->second;
    return std::nullopt;
  }
};

// A checkpoint store in memory with faults on demand.
struct fault_store {
  store_state* state;

  auto read(const replicant::slot_name& slot) -> result<std::optional<lsn>> {
    const std::lock_guard lock{state->mutex};
    if (state->read_error) return replicant::fail(*state->read_error);
    if (auto it = state->checkpoints.find(slot.str()); it != state->checkpoints.end()) {
      return std::optional<lsn>{it->second};
    }
    return std::optional<lsn>{};
  }
  auto write(const replicant::slot_name& slot, lsn at) -> result<void> {
    const std::lock_guard lock{state->mutex};
    if (state->failing_writes > 0) {
      --state->failing_writes;
      return replicant::fail(replicant::errc::checkpoint_store_failed);
    }
    state->checkpoints[slot.str()] = at;
    ++state->writes;
    return {};
  }
};
static_assert(replicant::checkpoint_store<fault_store>);

// Records delivered commit LSNs, in order, shared by the sinks below.
struct recorder {
  std::mutex mutex;
  std::vector<lsn> commits;
  std::vector<std::size_t> batches;  // sizes, in delivery order
  std::vector<std::string> order;    // "batch" / "message", in delivery order
  bool failing = false;

  auto count() -> std::size_t {
    const std::lock_guard lock{mutex};
    return commits.size();
  }
  auto wait_for(std::size_t n, std::chrono::seconds timeout = 30s) -> bool {
    return wait_until([&] { return count() >= n; }, timeout);
  }
  auto snapshot() -> std::vector<lsn> {
    const std::lock_guard lock{mutex};
    return commits;
  }
};

// A non-transactional sink: it cannot store a checkpoint, so the library keeps one.
struct lib_sink {
  recorder* r;
  auto handle_transaction(const replicant::transaction& t) -> result<void> {
    const std::lock_guard lock{r->mutex};
    if (r->failing) return replicant::fail(replicant::errc::sink_failed);
    r->commits.push_back(t.commit_lsn());
    return {};
  }
};
static_assert(replicant::lib_mode_sink<lib_sink>);

// A transactional sink persisting whole batches with their checkpoint.
struct batch_sink {
  recorder* r;
  std::optional<lsn> stored;
  auto checkpoint() -> result<std::optional<lsn>> {
    const std::lock_guard lock{r->mutex};
    return stored;
  }
  auto handle_batch(std::span<const replicant::transaction> batch) -> result<lsn> {
    const std::lock_guard lock{r->mutex};
    if (r->failing) return replicant::fail(replicant::errc::sink_failed);
    for (const auto& t : batch) {
      // Counted, not dropped: the library delivers nothing at or below the checkpoint it read at
      // connect, so a repeat is its fault, and fails the test program.
      if (stored && t.commit_lsn() <= *stored) {
        replicant::test::audit::finding("a transaction delivered again at or below the sink's checkpoint");
      }
      r->commits.push_back(t.commit_lsn());
    }
    r->batches.push_back(batch.size());
    r->order.emplace_back("batch");
    stored = batch.back().commit_lsn();
    return *stored;
  }
  auto handle_message(const replicant::logical_message&, const replicant::message_context&) -> result<void> {
    const std::lock_guard lock{r->mutex};
    r->order.emplace_back("message");
    return {};
  }
};
static_assert(replicant::batch_sink<batch_sink>);

using lib_policy = replicant::lib_owned_checkpoint<fault_store>;
using lib_pipeline = replicant::pgoutput_pipeline<lib_sink, lib_policy>;
using batch_pipeline = replicant::pgoutput_pipeline<batch_sink, replicant::sink_owned_batches>;

auto lib(store_state& state, std::optional<replicant::checkpoint_batching> batch = std::nullopt) -> lib_policy {
  return lib_policy{.store = fault_store{&state}, .batch = batch, .max_retries = 5, .retry_backoff = 20ms};
}

// Inserts n rows, each in a transaction of its own, numbered from first.
auto insert_each(replicant::test::published_database& f, int first, int n) -> void {
  for (int i = first; i < first + n; ++i) f.sql("INSERT INTO items VALUES (" + std::to_string(i) + ", 'x', 1)");
}

auto distinct(std::vector<lsn> v) -> bool {
  std::sort(v.begin(), v.end());
  return std::adjacent_find(v.begin(), v.end()) == v.end();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(lib_owned_checkpoint, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(writes_the_checkpoint_after_the_sink_and_resumes_after_it) {
  replicant::test::published_database f;
  store_state state;
  recorder rec;
  lib_sink sink{&rec};
  event_log events;
  {
    running<lib_pipeline> r{sink, f.pgoutput, lib(state), f.options, &events.dispatcher};
    BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
    insert_each(f, 1, 2);
    f.sql("INSERT INTO items VALUES (3, '" + std::string{secret} + "', 3)");
    BOOST_TEST_REQUIRE(rec.wait_for(3));
    BOOST_TEST_REQUIRE(wait_until([&] { return state.value(f.slot) == rec.snapshot().back(); }));
    BOOST_TEST(!r.stop());
  }
  BOOST_TEST(state.writes == 3);  // one per transaction
  BOOST_TEST(f.confirmed_flush() > rec.snapshot().back());
  BOOST_TEST(events.count("replicant.checkpoint_store.written") == 3U);
  BOOST_TEST(events.count("replicant.checkpoint_store.read") == 1U);
  BOOST_TEST(!events.contains("batch_flushed"));
  BOOST_TEST(!events.contains(secret));

  insert_each(f, 4, 2);  // while nothing streams
  {
    running<lib_pipeline> r{sink, f.pgoutput, lib(state), f.options};
    BOOST_TEST_REQUIRE(rec.wait_for(5));
    BOOST_TEST(!r.stop());
  }
  const auto commits = rec.snapshot();
  BOOST_TEST(commits.size() == 5U);
  BOOST_TEST(distinct(commits));
  BOOST_TEST(std::is_sorted(commits.begin(), commits.end()));
}

BOOST_AUTO_TEST_CASE(batched_writes_acknowledge_once_per_batch) {
  replicant::test::published_database f;
  store_state state;
  recorder rec;
  lib_sink sink{&rec};
  event_log events;
  running<lib_pipeline> r{sink, f.pgoutput,
                          lib(state, replicant::checkpoint_batching{.max_transactions = 3, .max_delay = 1h}), f.options,
                          &events.dispatcher};
  BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
  insert_each(f, 1, 2);
  BOOST_TEST_REQUIRE(rec.wait_for(2));
  BOOST_TEST_REQUIRE(f.wait_for_status_update());  // the slot's position is the pipeline's answer now
  // Delivered, but not yet in the store: neither written nor acknowledged.
  BOOST_TEST(!state.value(f.slot).has_value());
  BOOST_TEST(f.confirmed_flush() < rec.snapshot().front());
  insert_each(f, 3, 1);
  BOOST_TEST_REQUIRE(wait_until([&] { return state.value(f.slot) == rec.snapshot().back(); }));
  BOOST_TEST_REQUIRE(wait_until([&] { return f.confirmed_flush() > rec.snapshot().back(); }));
  BOOST_TEST(state.writes == 1);
  BOOST_TEST(events.count("replicant.checkpoint_store.batch_flushed") == 1U);
  BOOST_TEST(events.contains("change_count=3"));
}

BOOST_AUTO_TEST_CASE(a_batch_is_written_when_its_delay_is_up_or_the_pipeline_stops) {
  replicant::test::published_database f;
  store_state state;
  recorder rec;
  lib_sink sink{&rec};
  {
    running<lib_pipeline> r{sink, f.pgoutput,
                            lib(state, replicant::checkpoint_batching{.max_transactions = 100, .max_delay = 200ms}),
                            f.options};
    BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
    insert_each(f, 1, 1);
    BOOST_TEST_REQUIRE(rec.wait_for(1));
    BOOST_TEST(wait_until([&] { return state.value(f.slot) == rec.snapshot().back(); }, 5s));
  }
  {
    running<lib_pipeline> r{sink, f.pgoutput,
                            lib(state, replicant::checkpoint_batching{.max_transactions = 100, .max_delay = 1h}),
                            f.options};
    insert_each(f, 2, 2);
    BOOST_TEST_REQUIRE(rec.wait_for(3));
    BOOST_TEST((state.value(f.slot) != rec.snapshot().back()));
    BOOST_TEST(!r.stop());  // a graceful stop writes what is pending
  }
  BOOST_TEST((state.value(f.slot) == rec.snapshot().back()));
  BOOST_TEST(f.confirmed_flush() > rec.snapshot().back());
}

BOOST_AUTO_TEST_CASE(transient_store_faults_are_retried) {
  replicant::test::published_database f;
  store_state state;
  recorder rec;
  lib_sink sink{&rec};
  event_log events;
  running<lib_pipeline> r{sink, f.pgoutput, lib(state), f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
  {
    const std::lock_guard lock{state.mutex};
    state.failing_writes = 2;
  }
  insert_each(f, 1, 1);
  BOOST_TEST_REQUIRE(wait_until([&] { return state.value(f.slot).has_value(); }));
  BOOST_TEST(events.count("replicant.checkpoint_store.retrying") == 2U);
  BOOST_TEST(events.contains("attempt=2"));
  BOOST_TEST(!events.contains("replicant.checkpoint_store.failed"));
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(a_store_outage_beyond_the_budget_halts_and_loses_nothing) {
  replicant::test::published_database f;
  store_state state;
  recorder rec;
  lib_sink sink{&rec};
  event_log events;
  {
    auto policy = lib(state);
    policy.max_retries = 2;
    running<lib_pipeline> r{sink, f.pgoutput, std::move(policy), f.options, &events.dispatcher};
    BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
    insert_each(f, 1, 1);
    BOOST_TEST_REQUIRE(wait_until([&] { return state.value(f.slot).has_value(); }));
    {
      const std::lock_guard lock{state.mutex};
      state.failing_writes = 1000;
    }
    insert_each(f, 2, 1);
    BOOST_TEST(r.halted() == halt_reason::checkpoint_store_failed);
    const auto& h = r.pipeline.last_halt();
    BOOST_TEST_REQUIRE(h.has_value());
    BOOST_TEST(h->attempts.value_or(0) == 3U);  // the first try and two retries
    BOOST_TEST(h->cause == replicant::errc::checkpoint_store_failed);
  }
  BOOST_TEST(events.count("replicant.checkpoint_store.retrying") == 2U);
  BOOST_TEST(events.count("replicant.checkpoint_store.failed") == 1U);
  const auto delivered = rec.snapshot();
  BOOST_TEST_REQUIRE(delivered.size() == 2U);
  // The second transaction reached the sink but not the store: the slot stays before it.
  BOOST_TEST(f.confirmed_flush() < delivered.back());

  {
    const std::lock_guard lock{state.mutex};
    state.failing_writes = 0;
  }
  running<lib_pipeline> r{sink, f.pgoutput, lib(state), f.options};
  BOOST_TEST_REQUIRE(rec.wait_for(3));
  const auto after = rec.snapshot();
  BOOST_TEST(after.back() == delivered.back());  // delivered again: at-least-once, one duplicate
  BOOST_TEST_REQUIRE(wait_until([&] { return state.value(f.slot) == delivered.back(); }));
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(a_permanent_store_fault_halts_at_once) {
  replicant::test::published_database f;
  store_state state;
  state.read_error = replicant::errc::store_mismatch;
  recorder rec;
  lib_sink sink{&rec};
  event_log events;
  running<lib_pipeline> r{sink, f.pgoutput, lib(state), f.options, &events.dispatcher};
  BOOST_TEST(r.halted() == halt_reason::checkpoint_store_failed);
  BOOST_TEST(events.disconnected(halt_reason::checkpoint_store_failed));
  BOOST_TEST(r.pipeline.last_halt()->attempts.value_or(0) == 1U);
  BOOST_TEST(r.pipeline.last_halt()->cause == replicant::errc::store_mismatch);
  BOOST_TEST(!events.contains("replicant.checkpoint_store.retrying"));
  BOOST_TEST(events.contains("error_class=store_mismatch"));
}

BOOST_AUTO_TEST_CASE(no_retries_halts_on_the_first_fault) {
  replicant::test::published_database f;
  store_state state;
  state.read_error = replicant::errc::connection_failed;
  recorder rec;
  lib_sink sink{&rec};
  auto policy = lib(state);
  policy.max_retries = 0;
  running<lib_pipeline> r{sink, f.pgoutput, std::move(policy), f.options};
  BOOST_TEST(r.halted() == halt_reason::checkpoint_store_failed);
  BOOST_TEST(r.pipeline.last_halt()->attempts.value_or(0) == 1U);
}

BOOST_AUTO_TEST_CASE(a_sink_error_halts_and_its_transaction_is_delivered_again) {
  replicant::test::published_database f;
  store_state state;
  recorder rec;
  lib_sink sink{&rec};
  {
    running<lib_pipeline> r{sink, f.pgoutput, lib(state), f.options};
    BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
    insert_each(f, 1, 1);
    BOOST_TEST_REQUIRE(rec.wait_for(1));
    BOOST_TEST_REQUIRE(wait_until([&] { return state.value(f.slot).has_value(); }));
    {
      const std::lock_guard lock{rec.mutex};
      rec.failing = true;
    }
    insert_each(f, 2, 1);
    BOOST_TEST(r.halted() == halt_reason::sink_failed);
  }
  rec.failing = false;
  running<lib_pipeline> r{sink, f.pgoutput, lib(state), f.options};
  BOOST_TEST_REQUIRE(rec.wait_for(2));
  BOOST_TEST(distinct(rec.snapshot()));
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(invalid_policy_settings_are_refused_before_connecting) {
  replicant::test::published_database f;
  store_state state;
  recorder rec;
  lib_sink lsink{&rec};
  running<lib_pipeline> r{lsink, f.pgoutput, lib(state, replicant::checkpoint_batching{.max_transactions = 0}),
                          f.options};
  BOOST_TEST(r.halted() == halt_reason::config_invalid);
  batch_sink bsink{&rec, {}};
  running<batch_pipeline> b{bsink, f.pgoutput, replicant::sink_owned_batches{.max_transactions = 10, .max_delay = 0ms},
                            f.options};
  BOOST_TEST(b.halted() == halt_reason::config_invalid);
  BOOST_TEST(!f.slot_exists());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(sink_owned_batches, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(delivers_bounded_batches_in_commit_order_and_drains_on_stop) {
  replicant::test::published_database f;
  recorder rec;
  batch_sink sink{&rec, {}};
  event_log events;
  {
    running<batch_pipeline> r{sink, f.pgoutput, replicant::sink_owned_batches{.max_transactions = 3, .max_delay = 1h},
                              f.options, &events.dispatcher};
    BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
    insert_each(f, 1, 7);
    const auto written = replicant::parse_lsn(f.pg.scalar("SELECT pg_current_wal_lsn()")).value();
    BOOST_TEST_REQUIRE(rec.wait_for(6));
    BOOST_TEST_REQUIRE(f.wait_for_status_update());  // the slot's position is the pipeline's answer now
    BOOST_TEST(rec.count() == 6U);                   // the seventh waits for its batch, unacknowledged
    BOOST_TEST(f.confirmed_flush() < written);
    BOOST_TEST(!r.stop());
  }
  BOOST_TEST((rec.batches == std::vector<std::size_t>{3, 3, 1}));
  const auto commits = rec.snapshot();
  BOOST_TEST(std::is_sorted(commits.begin(), commits.end()));
  BOOST_TEST(distinct(commits));
  BOOST_TEST(f.confirmed_flush() > commits.back());
  BOOST_TEST(events.count("replicant.sink.batch_committed") == 3U);
  BOOST_TEST(events.count("reason=batch_full") == 2U);
  BOOST_TEST(events.count("reason=batch_drain") == 1U);

  insert_each(f, 8, 1);
  running<batch_pipeline> r{sink, f.pgoutput, replicant::sink_owned_batches{.max_transactions = 3, .max_delay = 100ms},
                            f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(rec.wait_for(8));
  BOOST_TEST(distinct(rec.snapshot()));
  // The event follows the sink's return, so it may come a moment after the sink has the batch.
  BOOST_TEST(wait_until([&] { return events.contains("reason=batch_timer"); }));
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(a_failed_batch_halts_and_none_of_it_is_acknowledged) {
  replicant::test::published_database f;
  recorder rec;
  batch_sink sink{&rec, {}};
  lsn failed_at{};
  {
    running<batch_pipeline> r{sink, f.pgoutput, replicant::sink_owned_batches{.max_transactions = 2, .max_delay = 1h},
                              f.options};
    BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
    insert_each(f, 1, 2);
    BOOST_TEST_REQUIRE(rec.wait_for(2));
    BOOST_TEST_REQUIRE(wait_until([&] { return f.confirmed_flush() > rec.snapshot().back(); }));
    {
      const std::lock_guard lock{rec.mutex};
      rec.failing = true;
    }
    insert_each(f, 3, 2);
    BOOST_TEST(r.halted() == halt_reason::sink_failed);
    BOOST_TEST_REQUIRE(r.pipeline.last_halt()->at.has_value());
    failed_at = *r.pipeline.last_halt()->at;  // the batch's first commit
  }
  BOOST_TEST(f.confirmed_flush() < failed_at);
  rec.failing = false;
  running<batch_pipeline> r{sink, f.pgoutput, replicant::sink_owned_batches{.max_transactions = 2, .max_delay = 1h},
                            f.options};
  BOOST_TEST_REQUIRE(rec.wait_for(4));
  BOOST_TEST((rec.batches == std::vector<std::size_t>{2, 2}));
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(a_message_waits_for_the_batch_before_it) {
  replicant::test::published_database f;
  f.pgoutput.messages = true;
  recorder rec;
  batch_sink sink{&rec, {}};
  running<batch_pipeline> r{sink, f.pgoutput, replicant::sink_owned_batches{.max_transactions = 100, .max_delay = 1h},
                            f.options};
  BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
  insert_each(f, 1, 2);
  f.sql("SELECT pg_logical_emit_message(false, 'test', 'hello')");
  BOOST_TEST_REQUIRE(wait_until([&] {
    const std::lock_guard lock{rec.mutex};
    return rec.order.size() >= 2;
  }));
  BOOST_TEST((rec.order == std::vector<std::string>{"batch", "message"}));
  BOOST_TEST(rec.count() == 2U);
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

// What a deferred sink was handed, and the confirmations the test resolves when and how it likes
// (from the test's thread: another thread than the pipeline's, as a broker's callbacks would be).
struct deferred_recorder {
  std::mutex mutex;
  std::vector<lsn> handed;
  std::vector<replicant::confirmation> pending;  // in hand-off order
  bool confirm_at_once = false;

  auto count() -> std::size_t {
    const std::lock_guard lock{mutex};
    return handed.size();
  }
  auto wait_for(std::size_t n, std::chrono::seconds timeout = 30s) -> bool {
    return wait_until([&] { return count() >= n; }, timeout);
  }
  auto confirmation(std::size_t i) -> replicant::confirmation {
    const std::lock_guard lock{mutex};
    return pending.at(i);
  }
  auto at(std::size_t i) -> lsn {
    const std::lock_guard lock{mutex};
    return handed.at(i);
  }
};

// A sink that accepts at once and confirms later (or at once, when asked to).
struct deferred_test_sink {
  deferred_recorder* r;
  auto checkpoint() -> result<std::optional<lsn>> { return std::optional<lsn>{}; }
  auto handle_transaction(const replicant::transaction& t, replicant::confirmation c) -> result<void> {
    const std::lock_guard lock{r->mutex};
    r->handed.push_back(t.commit_lsn());
    if (r->confirm_at_once) {
      c.confirm();
    } else {
      r->pending.push_back(std::move(c));
    }
    return {};
  }
};
static_assert(replicant::deferred_sink<deferred_test_sink>);
static_assert(replicant::sink_for<replicant::pgoutput_decoder, replicant::deferred_checkpoint, deferred_test_sink>);

using deferred_pipeline = replicant::pgoutput_pipeline<deferred_test_sink, replicant::deferred_checkpoint>;

auto deferred(std::size_t window = 100, std::chrono::milliseconds timeout = 30s) -> replicant::deferred_checkpoint {
  return replicant::deferred_checkpoint{.max_unconfirmed = window, .confirm_timeout = timeout};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(deferred_checkpoint, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(out_of_order_confirmations_acknowledge_only_the_contiguous_prefix) {
  replicant::test::published_database f;
  deferred_recorder rec;
  deferred_test_sink sink{&rec};
  event_log events;
  running<deferred_pipeline> r{sink, f.pgoutput, deferred(), f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
  insert_each(f, 1, 3);
  BOOST_TEST_REQUIRE(rec.wait_for(3));
  rec.confirmation(2).confirm();
  rec.confirmation(1).confirm();
  BOOST_TEST_REQUIRE(f.wait_for_status_update());  // the slot's position is the pipeline's answer now
  BOOST_TEST(f.confirmed_flush() < rec.at(0), "nothing past the unconfirmed first transaction");
  BOOST_TEST(!r.pipeline.last_halt().has_value());
  rec.confirmation(0).confirm();
  BOOST_TEST(wait_until([&] { return f.confirmed_flush() > rec.at(2); }));
  BOOST_TEST(r.pipeline.durable_lsn() > rec.at(2));
  BOOST_TEST(events.count("replicant.sink.committed") >= 1U);
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(a_failure_after_later_confirmations_halts_and_acknowledges_nothing_past_it) {
  replicant::test::published_database f;
  deferred_recorder rec;
  deferred_test_sink sink{&rec};
  event_log events;
  running<deferred_pipeline> r{sink, f.pgoutput, deferred(), f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
  insert_each(f, 1, 3);
  BOOST_TEST_REQUIRE(rec.wait_for(3));
  rec.confirmation(0).confirm();
  rec.confirmation(2).confirm();
  rec.confirmation(1).fail(std::make_error_code(std::errc::connection_refused));
  rec.confirmation(1).confirm();  // too late: the first call counts
  BOOST_TEST(r.halted() == halt_reason::sink_failed);
  const auto& h = r.pipeline.last_halt();
  BOOST_TEST_REQUIRE(h.has_value());
  BOOST_TEST((h->at == rec.at(1)));
  BOOST_TEST((h->cause == std::make_error_code(std::errc::connection_refused)));
  BOOST_TEST(f.confirmed_flush() > rec.at(0));
  BOOST_TEST(f.confirmed_flush() < rec.at(1));
  BOOST_TEST(events.count("replicant.sink.failed") == 1U);
}

BOOST_AUTO_TEST_CASE(a_lost_confirmation_halts_after_the_timeout) {
  replicant::test::published_database f;
  deferred_recorder rec;
  deferred_test_sink sink{&rec};
  running<deferred_pipeline> r{sink, f.pgoutput, deferred(100, 700ms), f.options};
  BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
  insert_each(f, 1, 2);
  BOOST_TEST_REQUIRE(rec.wait_for(2));
  rec.confirmation(1).confirm();  // the first one's confirmation never comes
  BOOST_TEST(r.halted() == halt_reason::sink_failed);
  const auto& h = r.pipeline.last_halt();
  BOOST_TEST_REQUIRE(h.has_value());
  BOOST_TEST((h->at == rec.at(0)));
  BOOST_TEST((h->cause == std::make_error_code(std::errc::timed_out)));
  BOOST_TEST(f.confirmed_flush() < rec.at(0));
}

BOOST_AUTO_TEST_CASE(a_full_window_paces_instead_of_halting) {
  replicant::test::published_database f;
  deferred_recorder rec;
  deferred_test_sink sink{&rec};
  running<deferred_pipeline> r{sink, f.pgoutput, deferred(2), f.options};
  BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
  insert_each(f, 1, 5);
  BOOST_TEST_REQUIRE(rec.wait_for(2));
  std::this_thread::sleep_for(1500ms);
  BOOST_TEST(rec.count() == 2U, "no third hand-off while two are out");
  BOOST_TEST(!r.pipeline.last_halt().has_value());
  // Confirm whatever arrives, as it arrives: the rest flows.
  for (std::size_t i = 0; i < 5; ++i) {
    BOOST_TEST_REQUIRE(rec.wait_for(i + 1));
    rec.confirmation(i).confirm();
  }
  BOOST_TEST(wait_until([&] { return f.confirmed_flush() > rec.at(4); }));
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(unconfirmed_transactions_are_delivered_again_after_a_restart) {
  replicant::test::published_database f;
  deferred_recorder rec;
  deferred_test_sink sink{&rec};
  {
    running<deferred_pipeline> r{sink, f.pgoutput, deferred(100, 500ms), f.options};
    BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
    insert_each(f, 1, 2);
    BOOST_TEST_REQUIRE(rec.wait_for(2));
    rec.confirmation(0).confirm();
    BOOST_TEST(!r.stop());  // waits up to the timeout for the second; it never comes
  }
  BOOST_TEST(f.confirmed_flush() > rec.at(0));
  BOOST_TEST(f.confirmed_flush() < rec.at(1));
  rec.confirmation(1).confirm();  // after its connection ended: ignored
  const lsn second = rec.at(1);
  {
    const std::lock_guard lock{rec.mutex};
    rec.confirm_at_once = true;
  }
  running<deferred_pipeline> r{sink, f.pgoutput, deferred(), f.options};
  BOOST_TEST_REQUIRE(rec.wait_for(3));
  BOOST_TEST((rec.at(2) == second), "the unconfirmed transaction comes again, and only it");
  BOOST_TEST(wait_until([&] { return f.confirmed_flush() > second; }));
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(a_stop_waits_for_confirmations_in_flight) {
  replicant::test::published_database f;
  deferred_recorder rec;
  deferred_test_sink sink{&rec};
  running<deferred_pipeline> r{sink, f.pgoutput, deferred(), f.options};
  BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
  insert_each(f, 1, 2);
  BOOST_TEST_REQUIRE(rec.wait_for(2));
  std::thread late{[&] {
    std::this_thread::sleep_for(300ms);
    rec.confirmation(1).confirm();
    rec.confirmation(0).confirm();
  }};
  BOOST_TEST(!r.stop());
  late.join();
  BOOST_TEST(f.confirmed_flush() > rec.at(1));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // checkpoint_policies_tests
