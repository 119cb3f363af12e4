// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The simulator (replicant/testing/explore.hpp) over every shipped checkpoint policy, with and
// without spilling, and over deliberately broken models, each of which it must catch: a policy
// that reports durable before the sink returns, one that reports past a transaction it holds, one
// that tells the engine it holds nothing while it does (so the engine advances on a message past
// it), a sink that skips one transaction too many after a restart, a spill that drops a part, and
// a side connection that answers the server's WAL end for what the walsender sent.
#include <replicant/testing/explore.hpp>

#include <boost/test/unit_test.hpp>

#include "support/common/required.hpp"
#include "unit/docs/support.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

BOOST_AUTO_TEST_SUITE(testing_explore_tests)

namespace utf = boost::unit_test;
using replicant::lsn;
using replicant::result;
using replicant::transaction;
namespace rt = replicant::testing;

namespace {

//[prove_it.sink
// What survives a crash: the stored transactions and the checkpoint, written together.
struct ledger {
  std::vector<rt::stored_transaction> stored;
  std::optional<lsn> checkpoint;
};
using sim = rt::simulation<ledger>;

auto changes_of(const transaction& t) -> std::size_t {
  std::size_t n = 0;
  for (const auto& c : t.changes()) {
    static_cast<void>(c);
    ++n;
  }
  return n;
}

// The fault the simulation asks for, as a sink's answer.
auto faulted(sim& s) -> std::optional<result<lsn>> {
  switch (s.fault()) {
    case rt::sink_fault::none: return std::nullopt;
    case rt::sink_fault::error: return replicant::fail(replicant::errc::sink_failed);
    case rt::sink_fault::exception: throw std::runtime_error("simulated sink fault");
  }
  return std::nullopt;
}

// Stores each transaction and its checkpoint in one atomic write, skipping what it has.
struct ledger_sink {
  ledger& state;
  sim& s;

  auto checkpoint() -> result<std::optional<lsn>> { return state.checkpoint; }
  auto handle_transaction(const transaction& t) -> result<lsn> {
    if (auto f = faulted(s)) return *f;  // the simulator may make this call fail
    if (state.checkpoint && t.commit_lsn() <= *state.checkpoint) return t.commit_lsn();
    const auto n = changes_of(t);
    s.crash_point();  // before the durable write
    state.stored.push_back({t.commit_lsn(), n});
    state.checkpoint = t.commit_lsn();
    s.crash_point();  // after it, before returning
    return t.commit_lsn();
  }
  auto handle_message(const replicant::logical_message&, const replicant::message_context&) -> result<void> {
    s.crash_point();
    return {};
  }
};
//]

// The broken model: after a restart, it skips the first transaction it has not stored.
struct skipping_sink : ledger_sink {
  bool skipped = false;
  auto handle_transaction(const transaction& t) -> result<lsn> {
    if (state.checkpoint && t.commit_lsn() > *state.checkpoint && !skipped) {
      skipped = true;
      return t.commit_lsn();
    }
    return ledger_sink::handle_transaction(t);
  }
};

// The same per atomic batch.
struct batch_ledger_sink {
  ledger& state;
  sim& s;
  auto checkpoint() -> result<std::optional<lsn>> { return state.checkpoint; }
  auto handle_batch(std::span<const transaction> batch) -> result<lsn> {
    if (auto f = faulted(s)) return *f;
    s.crash_point();
    for (const auto& t : batch) {
      if (state.checkpoint && t.commit_lsn() <= *state.checkpoint) continue;
      state.stored.push_back({t.commit_lsn(), changes_of(t)});
    }
    state.checkpoint = batch.back().commit_lsn();
    s.crash_point();
    return batch.back().commit_lsn();
  }
  auto handle_message(const replicant::logical_message&, const replicant::message_context&) -> result<void> {
    return {};
  }
};

// An asynchronous sink: its write lands later (a broker's publish), then it confirms.
struct async_ledger_sink {
  ledger& state;
  sim& s;
  auto checkpoint() -> result<std::optional<lsn>> { return state.checkpoint; }
  auto handle_transaction(const transaction& t, replicant::confirmation c) -> result<void> {
    if (auto f = faulted(s)) return replicant::fail(replicant::errc::sink_failed);
    const rt::stored_transaction record{t.commit_lsn(), changes_of(t)};
    s.later(
        [record](ledger& l) {
          if (l.checkpoint && record.commit_lsn <= *l.checkpoint) return;  // the broker's dedup
          l.stored.push_back(record);
          l.checkpoint = record.commit_lsn;
        },
        std::move(c));
    return {};
  }
  auto handle_message(const replicant::logical_message&, const replicant::message_context&) -> result<void> {
    return {};
  }
};

// A library-owned sink: not transactional, it stores what it is handed (at least once).
struct plain_sink {
  ledger& state;
  sim& s;
  auto handle_transaction(const transaction& t) -> result<void> {
    if (auto f = faulted(s)) return replicant::fail(replicant::errc::sink_failed);
    s.crash_point();
    state.stored.push_back({t.commit_lsn(), changes_of(t)});
    s.crash_point();
    return {};
  }
};

// The library's checkpoint store, in the ledger.
struct ledger_store {
  ledger* state;
  sim* s;
  auto read(const replicant::slot_name&) -> result<std::optional<lsn>> { return state->checkpoint; }
  auto write(const replicant::slot_name&, lsn at) -> result<void> {
    s->crash_point();
    state->checkpoint = at;
    s->crash_point();
    return {};
  }
};

// A spill policy that keeps parts in memory; `drop_first` loses each part's first write.
class memory_part final : public replicant::spill_part {
 public:
  explicit memory_part(bool drop_first) : drop_(drop_first) {}
  auto append(std::span<const std::byte> bytes) -> result<void> override {
    if (drop_) {
      drop_ = false;
      return {};
    }
    data_.insert(data_.end(), bytes.begin(), bytes.end());
    return {};
  }
  auto flush() -> result<void> override { return {}; }
  auto read(std::uint64_t offset, std::span<std::byte> into) const -> result<std::size_t> override {
    if (offset >= data_.size()) return std::size_t{0};
    const auto n = std::min<std::size_t>(into.size(), data_.size() - static_cast<std::size_t>(offset));
    std::copy_n(data_.begin() + static_cast<std::ptrdiff_t>(offset), n, into.begin());
    return n;
  }
  auto truncate(std::uint64_t size) -> result<void> override {
    data_.resize(static_cast<std::size_t>(size));
    return {};
  }
  [[nodiscard]] auto size() const noexcept -> std::uint64_t override { return data_.size(); }

 private:
  bool drop_;
  std::vector<std::byte> data_;
};

struct memory_spill {
  bool drop_first = false;
  [[nodiscard]] auto limits(const replicant::spill_context&) const -> std::optional<replicant::spill_limits> {
    return replicant::spill_limits{.threshold_bytes = 64, .max_bytes = 1U << 20U};
  }
  [[nodiscard]] auto prepare(const replicant::spill_context&) -> result<void> { return {}; }
  [[nodiscard]] auto open(const replicant::spill_context&) -> result<std::unique_ptr<replicant::spill_part>> {
    return std::unique_ptr<replicant::spill_part>{std::make_unique<memory_part>(drop_first)};
  }
};
static_assert(replicant::spill_policy<memory_spill>);

// A sink of type Sink over the ledger (a derived broken model has its base to initialise).
template <class Sink>
auto make_sink(ledger& l, sim& s) -> Sink {
  if constexpr (std::is_base_of_v<ledger_sink, Sink> && !std::is_same_v<ledger_sink, Sink>) {
    return Sink{{l, s}};
  } else {
    return Sink{l, s};
  }
}

auto stored_of(const ledger& l) -> std::vector<rt::stored_transaction> { return l.stored; }

// The CI-sized exploration (docs/reliability.md, "The simulator"): every world of up to three
// entries at every crash point, then random ones. The environment sizes it (tools/soak: 100 times
// the random schedules; the sanitizer presets: worlds of up to two entries and a tenth of the random
// schedules, enough to take every path under the sanitizers) and replays a seed.
auto options(rt::guarantee promise = rt::guarantee::exactly_once, std::size_t repeats = 1) -> rt::explore_options {
  using replicant::test::env_number;
  rt::explore_options o;
  o.seed = env_number("REPLICANT_EXPLORE_SEED", 20261206);
  o.exhaustive_events = static_cast<std::size_t>(env_number("REPLICANT_EXPLORE_EXHAUSTIVE", 3));
  o.random_schedules = static_cast<std::size_t>(env_number("REPLICANT_EXPLORE_SCHEDULES", 1000));
  o.two_phase = true;  // the shipped policies under two-phase decoding too (streaming is on by default)
  o.promise = promise;
  o.repeats_per_crash = repeats;
  return o;
}

// A policy that holds nothing back beyond another's model (the spilling variant of sink-owned, the
// library-owned ones, whose promise is at least once): every world one entry smaller, and twice the
// random schedules, so that the whole exploration stays within CI's three minutes.
auto lighter(rt::explore_options o) -> rt::explore_options {
  o.exhaustive_events = std::max<std::size_t>(1, o.exhaustive_events - 1);
  o.random_schedules *= 2;
  return o;
}

// Broken models are caught within the first small worlds: no need for the full size.
auto small() -> rt::explore_options {
  rt::explore_options o = options();
  o.exhaustive_events = 2;
  o.random_schedules = 200;
  return o;
}

template <class Policy, class Spill, class Sink>
auto explore_with(std::function<Policy(ledger&, sim&)> policy, Spill spill, rt::explore_options o = options())
    -> rt::exploration {
  return rt::explore<Policy, Spill, Sink, ledger>(
      {.sink = [](ledger& l, sim& s) { return std::make_unique<Sink>(make_sink<Sink>(l, s)); },
       .policy = std::move(policy),
       .stored = &stored_of,
       .spill = [spill] { return spill; }},
      o);
}

auto report(const rt::exploration& e) -> void {
  BOOST_TEST_MESSAGE("schedules " << e.schedules << ", crashes " << e.crashes << ", halts " << e.halts
                                  << ", idle advances " << e.idle_advances << ", side checks failed "
                                  << e.side_check_failures << ", halts for a publication gone " << e.publication_halts);
}

// --- broken models ---------------------------------------------------------------------------

// Reports a transaction durable before handing it to the sink.
struct early_checkpoint : replicant::sink_owned_checkpoint {
  template <class Sink>
  class delivery : public replicant::sink_owned_checkpoint::delivery<Sink> {
   public:
    using replicant::sink_owned_checkpoint::delivery<Sink>::delivery;
    auto deliver(replicant::checkpoint_context<Sink>& ctx, transaction&& t) -> result<void> {
      ctx.persisted(t.commit_lsn(), t.end_lsn());  // the bug: before the sink has it
      if (auto stored = replicant::detail::handle_transaction(ctx, std::as_const(t)); !stored) return stored;
      ctx.release(std::move(t));
      return {};
    }
  };
};

// Holds transactions in a batch, and reports each one durable as it joins the batch.
struct eager_batches : replicant::sink_owned_batches {
  template <class Sink>
  class delivery : public replicant::sink_owned_batches::delivery<Sink> {
    using base = replicant::sink_owned_batches::delivery<Sink>;

   public:
    using base::base;
    auto deliver(replicant::checkpoint_context<Sink>& ctx, transaction&& t) -> result<void> {
      const lsn commit = t.commit_lsn();
      const lsn end = t.end_lsn();
      if (auto r = base::deliver(ctx, std::move(t)); !r) return r;
      ctx.persisted(commit, end);  // the bug: it may still be in the batch
      return {};
    }
  };
};

// At the batch's deadline, reports the batch durable before handing it to the sink. Only time
// passing (a pause in the simulated time) reaches the bug: a full batch is handed over right.
struct hasty_deadline : replicant::sink_owned_batches {
  template <class Sink>
  class delivery : public replicant::sink_owned_batches::delivery<Sink> {
    using base = replicant::sink_owned_batches::delivery<Sink>;

   public:
    using base::base;
    auto deliver(replicant::checkpoint_context<Sink>& ctx, transaction&& t) -> result<void> {
      last_ = {t.commit_lsn(), t.end_lsn()};
      return base::deliver(ctx, std::move(t));
    }
    auto tick(replicant::checkpoint_context<Sink>& ctx, std::chrono::steady_clock::time_point now) -> result<void> {
      if (const auto due = base::due(); due && now >= *due) ctx.persisted(last_.first, last_.second);  // the bug
      return base::tick(ctx, now);
    }

   private:
    std::pair<lsn, lsn> last_{};
  };
};

// Holds a batch but tells the engine it holds nothing: the engine then moves the acknowledged
// position on a message (or an empty transaction) past the batch, as it did, for a deferred
// sink, before the simulator found it.
struct hiding_batches : replicant::sink_owned_batches {
  template <class Sink>
  class delivery : public replicant::sink_owned_batches::delivery<Sink> {
   public:
    using replicant::sink_owned_batches::delivery<Sink>::delivery;
    [[nodiscard]] auto holding() const noexcept -> bool { return false; }  // the bug
  };
};

// A side connection that answers the server's WAL end (pg_current_wal_lsn()) where the walsender's
// sent position (pg_stat_replication.sent_lsn) was meant. Harmless while the keepalives are right,
// since the idle advance takes the lower of the two; with keepalives that run ahead too, a state
// mirror's slot moves past transactions not yet sent.
struct wal_end_probe : rt::detail::sim_probe {
  using sim_probe::sim_probe;
  auto walsender_sent(int /*pid*/) -> result<std::optional<lsn>> {
    if (auto ok = ask(rt::detail::probe_call::walsender_sent); !ok) return replicant::unexpected(ok.error());
    return std::optional<lsn>{world_wal().last()};  // the bug
  }
};
static_assert(replicant::server_probe<wal_end_probe>);

// A publication check that takes any answer but a failed query for "it exists": a publication
// dropped while the pipeline streams goes unseen, and the pipeline streams on without it (the
// fail-open check the session loop's must not be).
struct blind_publication_probe : rt::detail::sim_probe {
  using sim_probe::sim_probe;
  auto publications_exist(std::span<const std::string> /*names*/) -> result<bool> {
    if (auto ok = ask(rt::detail::probe_call::publications); !ok) return replicant::unexpected(ok.error());
    return true;  // the bug
  }
};
static_assert(replicant::server_probe<blind_publication_probe>);

// Batches of @p n, or whatever a pause (longer than the deadline) leaves waiting.
auto batches(std::size_t n) -> replicant::sink_owned_batches {
  return replicant::sink_owned_batches{.max_transactions = n, .max_delay = std::chrono::seconds(1)};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(shipped_policies, *utf::label("unit"))

BOOST_AUTO_TEST_CASE(sink_owned_keeps_exactly_once) {
  //[prove_it.explore
  const auto found = rt::explore<replicant::sink_owned_checkpoint, replicant::no_spill, ledger_sink, ledger>(
      {.sink = [](ledger& l, sim& s) { return std::make_unique<ledger_sink>(ledger_sink{l, s}); },
       .policy = [](ledger&, sim&) { return replicant::sink_owned_checkpoint{}; },
       .stored = [](const ledger& l) { return l.stored; }},
      options());
  BOOST_TEST(static_cast<bool>(found), found.failure);
  //]
  report(found);
  BOOST_TEST(found.crashes > 0U);
  BOOST_TEST(found.halts > 0U);
  // A state mirror (the ledger declares no kind), over filtered stretches: its slot moves idle,
  // and checks beside the stream fail, some long enough to halt.
  BOOST_TEST(found.idle_advances > 0U);
  BOOST_TEST(found.side_check_failures > 0U);
  // Publications dropped for a while: the checks that found one gone halted.
  BOOST_TEST(found.publication_halts > 0U);
}

BOOST_AUTO_TEST_CASE(sink_owned_with_spilling_keeps_exactly_once) {
  const auto e = explore_with<replicant::sink_owned_checkpoint, memory_spill, ledger_sink>(
      [](ledger&, sim&) { return replicant::sink_owned_checkpoint{}; }, memory_spill{}, lighter(options()));
  report(e);
  BOOST_TEST(static_cast<bool>(e), e.failure);
}

BOOST_AUTO_TEST_CASE(sink_owned_batches_keep_exactly_once) {
  const auto e = explore_with<replicant::sink_owned_batches, replicant::no_spill, batch_ledger_sink>(
      [](ledger&, sim&) { return batches(3); }, replicant::no_spill{});
  report(e);
  BOOST_TEST(static_cast<bool>(e), e.failure);
}

BOOST_AUTO_TEST_CASE(deferred_keeps_exactly_once) {
  const auto e = explore_with<replicant::deferred_checkpoint, replicant::no_spill, async_ledger_sink>(
      [](ledger&, sim&) { return replicant::deferred_checkpoint{.confirm_timeout = std::chrono::hours(1)}; },
      replicant::no_spill{});
  report(e);
  BOOST_TEST(static_cast<bool>(e), e.failure);
}

BOOST_AUTO_TEST_CASE(lib_owned_keeps_at_least_once_within_one_transaction) {
  using policy = replicant::lib_owned_checkpoint<ledger_store>;
  const auto e = explore_with<policy, replicant::no_spill, plain_sink>(
      [](ledger& l, sim& s) { return policy{.store = ledger_store{&l, &s}, .max_retries = 0}; }, replicant::no_spill{},
      lighter(options(rt::guarantee::at_least_once, 1)));
  report(e);
  BOOST_TEST(static_cast<bool>(e), e.failure);
}

BOOST_AUTO_TEST_CASE(lib_owned_batched_keeps_at_least_once_within_one_batch) {
  using policy = replicant::lib_owned_checkpoint<ledger_store>;
  const auto e = explore_with<policy, replicant::no_spill, plain_sink>(
      [](ledger& l, sim& s) {
        return policy{
            .store = ledger_store{&l, &s},
            .batch = replicant::checkpoint_batching{.max_transactions = 3, .max_delay = std::chrono::seconds(1)},
            .max_retries = 0};
      },
      replicant::no_spill{}, lighter(options(rt::guarantee::at_least_once, 3)));
  report(e);
  BOOST_TEST(static_cast<bool>(e), e.failure);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(broken_models_are_caught, *utf::label("unit"))

BOOST_AUTO_TEST_CASE(a_policy_that_reports_durable_before_the_sink_returns) {
  const auto e = explore_with<early_checkpoint, replicant::no_spill, ledger_sink>(
      [](ledger&, sim&) { return early_checkpoint{}; }, replicant::no_spill{}, small());
  BOOST_TEST_MESSAGE(e.failure);
  BOOST_TEST(!e);
  BOOST_TEST(e.failure.find("acknowledged") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_policy_that_reports_past_a_held_transaction) {
  const auto e = explore_with<eager_batches, replicant::no_spill, batch_ledger_sink>(
      [](ledger&, sim&) { return eager_batches{batches(3)}; }, replicant::no_spill{}, small());
  BOOST_TEST_MESSAGE(e.failure);
  BOOST_TEST(!e);
}

BOOST_AUTO_TEST_CASE(the_engine_advancing_on_a_message_while_a_policy_holds) {
  const auto e = explore_with<hiding_batches, replicant::no_spill, batch_ledger_sink>(
      [](ledger&, sim&) { return hiding_batches{batches(3)}; }, replicant::no_spill{}, small());
  BOOST_TEST_MESSAGE(e.failure);
  BOOST_TEST(!e);
}

BOOST_AUTO_TEST_CASE(a_policy_that_reports_at_its_deadline_before_the_sink_has_the_batch) {
  const auto e = explore_with<hasty_deadline, replicant::no_spill, batch_ledger_sink>(
      [](ledger&, sim&) { return hasty_deadline{batches(3)}; }, replicant::no_spill{}, small());
  BOOST_TEST_MESSAGE(e.failure);
  BOOST_TEST(!e);
  // The deadline passed in the simulated time: the shrunk schedule keeps the pause that did it.
  BOOST_TEST(e.failure.find("pause") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_sink_that_skips_one_transaction_too_many) {
  const auto e = explore_with<replicant::sink_owned_checkpoint, replicant::no_spill, skipping_sink>(
      [](ledger&, sim&) { return replicant::sink_owned_checkpoint{}; }, replicant::no_spill{}, small());
  BOOST_TEST_MESSAGE(e.failure);
  BOOST_TEST(!e);
}

BOOST_AUTO_TEST_CASE(a_spill_that_drops_a_part) {
  const auto e = explore_with<replicant::sink_owned_checkpoint, memory_spill, ledger_sink>(
      [](ledger&, sim&) { return replicant::sink_owned_checkpoint{}; }, memory_spill{.drop_first = true}, small());
  BOOST_TEST_MESSAGE(e.failure);
  BOOST_TEST(!e);
}

// Explores the sink-owned ledger over the side connection's model @p Probe, a broken one; what broke.
template <class Probe>
auto explore_over_probe() -> rt::exploration {
  using policy = replicant::sink_owned_checkpoint;
  const rt::subject<policy, replicant::no_spill, ledger_sink, ledger> what{
      .sink = [](ledger& l, sim& s) { return std::make_unique<ledger_sink>(ledger_sink{l, s}); },
      .policy = [](ledger&, sim&) { return policy{}; },
      .stored = &stored_of};
  rt::detail::explorer<policy, replicant::no_spill, ledger_sink, ledger, Probe> broken{what, small()};
  auto e = broken.run();
  BOOST_TEST_MESSAGE(e.failure);
  return e;
}

BOOST_AUTO_TEST_CASE(a_side_connection_that_reports_the_wal_end_as_sent) {
  const auto e = explore_over_probe<wal_end_probe>();
  BOOST_TEST(!e);
  BOOST_TEST(e.failure.find("every keepalive reports the end of the WAL") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_publication_check_that_fails_open) {
  const auto e = explore_over_probe<blind_publication_probe>();
  BOOST_TEST(!e);
  BOOST_TEST(e.failure.find("the publication was gone and the pipeline went on") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(writing_a_policy_quotes_the_proof) {
  const auto source = docs_support::read_text(__FILE__);
  for (const auto* name : {"prove_it.sink", "prove_it.explore"}) {
    docs_support::require_quoted(source, name, "docs/checkpoint/writing_a_policy.md");
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // testing_explore_tests
