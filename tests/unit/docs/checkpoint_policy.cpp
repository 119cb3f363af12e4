// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// docs/checkpoint/writing_a_policy.md and docs/checkpoint/deferred.md: their exemplars compile
// (the snippets below, quoted there verbatim), the exemplar policy keeps the laws of the family
// when driven through a checkpoint_context, the exemplar deferred sink is acknowledged from its
// worker's confirmations, and deferred_checkpoint keeps each guarantee its page states.
#include <replicant/checkpoint/policy.hpp>

#include <boost/test/unit_test.hpp>

#include "support/sinks/transaction_collector.hpp"
#include "support/wire/pgoutput_builder.hpp"
#include "unit/docs/support.hpp"

#include <replicant/checkpoint/deferred.hpp>
#include <replicant/pipeline.hpp>
#include <replicant/pipeline/sink_for.hpp>

#include <chrono>
#include <concepts>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

BOOST_AUTO_TEST_SUITE(docs_checkpoint_policy_tests)

//[policy_exemplar
// Grouped commits: the sink stages each transaction in a unit of work it keeps open (one database
// transaction, say) and commits the unit, with the last staged commit LSN as its checkpoint, when
// the policy says so. One durable commit per group, as with sink_owned_batches, but the sink holds
// the staged rows: the policy keeps positions only.
template <class S>
concept reads_its_checkpoint = requires(S& s) {
  { s.checkpoint() } -> std::same_as<replicant::result<std::optional<replicant::lsn>>>;
};
template <class S>
concept stages = requires(S& s, const replicant::transaction& txn) {
  { s.stage(txn) } -> std::same_as<replicant::result<void>>;
};
template <class S>
concept commits = requires(S& s, replicant::lsn last) {
  { s.commit(last) } -> std::same_as<replicant::result<void>>;
};
template <class S>
concept grouping_sink = reads_its_checkpoint<S> && stages<S> && commits<S>;

struct grouped_commit_checkpoint {
  std::size_t every = 50;                                                // commit after this many...
  std::chrono::milliseconds max_delay = std::chrono::milliseconds(500);  // ... or when the first waited this long

  [[nodiscard]] auto valid() const noexcept -> bool { return every > 0 && max_delay.count() > 0; }

  template <class Sink>
  static constexpr bool accepts = grouping_sink<Sink>;

  template <class S>
  static constexpr auto check_sink() -> bool {
    static_assert(reads_its_checkpoint<S>,
                  "grouped_commit_checkpoint: Sink must provide `result<std::optional<lsn>> checkpoint()` (the "
                  "commit LSN it last committed; rolls back a unit left open)");
    static_assert(stages<S>, "grouped_commit_checkpoint: Sink must provide `result<void> stage(const transaction&)`");
    static_assert(commits<S>, "grouped_commit_checkpoint: Sink must provide `result<void> commit(lsn)`");
    return true;
  }

  template <class Sink>
  class delivery {
   public:
    using clock = std::chrono::steady_clock;
    using context = replicant::checkpoint_context<Sink>;

    explicit delivery(grouped_commit_checkpoint& settings) noexcept : settings_(settings) {}

    auto resume(context& ctx) -> replicant::result<std::optional<replicant::lsn>> {
      auto read = ctx.call_sink([&] { return ctx.sink().checkpoint(); });
      if (!read) {
        replicant::halt h;
        h.reason = replicant::halt_reason::sink_failed;
        h.cause = read.error();
        static_cast<void>(ctx.halt_with(std::move(h)));
      }
      return read;
    }

    auto deliver(context& ctx, replicant::transaction&& t) -> replicant::result<void> {
      const auto started = clock::now();
      auto staged = ctx.call_sink([&] { return ctx.sink().stage(std::as_const(t)); });
      if (!staged) return ctx.sink_failed(t.commit_lsn(), clock::now() - started, staged.error());
      if (!group_) group_ = group{t.commit_lsn(), {}, {}, 0, ctx.now() + settings_.max_delay};
      group_->last = t.commit_lsn();
      group_->end = t.end_lsn();
      ++group_->size;
      ctx.release(std::move(t));  // the sink copied what it needs
      if (group_->size >= settings_.every) return commit(ctx);
      return {};
    }

    auto tick(context& ctx, clock::time_point now) -> replicant::result<void> {
      if (group_ && now >= group_->due) return commit(ctx);
      return {};
    }
    auto flush(context& ctx) -> replicant::result<void> { return commit(ctx); }
    // The sink stored the snapshot's consistent point itself (handle_snapshot_complete).
    auto snapshot_taken(context& /*ctx*/, replicant::lsn /*at*/) -> replicant::result<void> { return {}; }

    [[nodiscard]] auto holding() const noexcept -> bool { return group_.has_value(); }
    [[nodiscard]] auto due() const noexcept -> std::optional<clock::time_point> {
      if (!group_) return std::nullopt;
      return group_->due;
    }
    [[nodiscard]] auto resident_bytes() const noexcept -> std::size_t { return 0; }

   private:
    struct group {
      replicant::lsn first, last, end;
      std::size_t size;
      clock::time_point due;
    };

    auto commit(context& ctx) -> replicant::result<void> {
      if (!group_) return {};
      if (ctx.halted()) return replicant::fail(replicant::errc::halted);  // never past a failure
      const auto started = clock::now();
      auto done = ctx.call_sink([&] { return ctx.sink().commit(group_->last); });
      if (!done) return ctx.sink_failed(group_->first, clock::now() - started, done.error());
      ctx.persisted(group_->last, group_->end);
      group_.reset();
      return {};
    }

    grouped_commit_checkpoint& settings_;
    std::optional<group> group_;
  };
};
//]

//[policy_sink
// A sink for it, in memory; a database sink stages into an open transaction and commits it with
// its checkpoint row.
struct staging_sink {
  std::optional<replicant::lsn> stored;
  std::vector<replicant::lsn> staged, committed;

  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> {
    staged.clear();  // a unit left open by a halt or a crash is rolled back
    return stored;
  }
  auto stage(const replicant::transaction& txn) -> replicant::result<void> {
    if (stored && txn.commit_lsn() <= *stored) return {};  // committed already
    staged.push_back(txn.commit_lsn());
    return {};
  }
  auto commit(replicant::lsn last) -> replicant::result<void> {
    committed.insert(committed.end(), staged.begin(), staged.end());
    staged.clear();
    stored = last;  // in the same unit as the rows
    return {};
  }
};

static_assert(replicant::checkpoint_policy_for<grouped_commit_checkpoint, staging_sink>);
static_assert(replicant::sink_for<replicant::pgoutput_decoder, grouped_commit_checkpoint, staging_sink>);
//]

//[policy_pipeline
using grouped = replicant::pgoutput_pipeline<staging_sink, grouped_commit_checkpoint>;

auto make_grouped(staging_sink& sink, const replicant::pgoutput_options& pg, const replicant::pipeline_options& o)
    -> grouped {
  return grouped{sink, pg, grouped_commit_checkpoint{.every = 200, .max_delay = std::chrono::seconds(1)}, o};
}
//]

//[deferred_sink
// Publishes on a worker thread of its own, which confirms each message once the broker has it (a
// vector stands in for the broker here; a real sink confirms from its producer's delivery report).
class worker_sink {
 public:
  worker_sink() : worker_([this](std::stop_token stop) { publish(stop); }) {}

  // The broker's newest message id. One worker publishes in commit order, so the broker holds
  // every transaction before that one too.
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> {
    const std::scoped_lock lock{mutex_};
    if (broker_.empty()) return std::optional<replicant::lsn>{};
    return std::optional{broker_.back().id};
  }

  // Copies what it needs (`txn` is valid during the call only: a real sink serialises the rows
  // here) and returns at once.
  auto handle_transaction(const replicant::transaction& txn, replicant::confirmation done) -> replicant::result<void> {
    {
      const std::scoped_lock lock{mutex_};
      queue_.emplace_back(message{txn.commit_lsn(), txn.change_count()}, std::move(done));
    }
    ready_.notify_one();
    return {};
  }

  [[nodiscard]] auto published() -> std::size_t {
    const std::scoped_lock lock{mutex_};
    return broker_.size();
  }

 private:
  struct message {
    replicant::lsn id;  // the commit LSN: the broker drops a message id it has already
    std::size_t changes = 0;
  };

  auto publish(const std::stop_token& stop) -> void {
    std::unique_lock lock{mutex_};
    while (ready_.wait(lock, stop, [&] { return !queue_.empty(); })) {
      auto [m, done] = std::move(queue_.front());
      queue_.pop_front();
      if (broker_.empty() || broker_.back().id < m.id) broker_.push_back(m);
      lock.unlock();
      done.confirm();  // from this thread: durable in the broker
      lock.lock();
    }
  }

  std::mutex mutex_;
  std::condition_variable_any ready_;
  std::deque<std::pair<message, replicant::confirmation>> queue_;
  std::vector<message> broker_;
  std::jthread worker_;  // last: stopped and joined before the members it uses are destroyed
};

static_assert(replicant::deferred_sink<worker_sink>);
static_assert(replicant::sink_for<replicant::pgoutput_decoder, replicant::deferred_checkpoint, worker_sink>);
//]

// The family's concept tells the policies apart by what they require of a sink.
static_assert(!replicant::sink_for<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint, staging_sink>);
static_assert(!replicant::sink_for<replicant::pgoutput_decoder, grouped_commit_checkpoint, worker_sink>);
static_assert(!replicant::sink_for<replicant::pgoutput_decoder, replicant::deferred_checkpoint, staging_sink>);
static_assert(replicant::detail::check_checkpoint_policy<grouped_commit_checkpoint, staging_sink>());
static_assert(replicant::detail::check_checkpoint_policy<replicant::deferred_checkpoint, worker_sink>());
// Every library model is a model of the family's concept.
static_assert(replicant::checkpoint_policy_for<replicant::deferred_checkpoint, worker_sink>);
static_assert(replicant::checkpoint_policy_for<replicant::sink_owned_checkpoint, staging_sink>);  // but not accepted
static_assert(!replicant::sink_owned_checkpoint::accepts<staging_sink>);
// The exemplar has no incremental-snapshot progress: the pipeline will not run that mode with it.
static_assert(!replicant::detail::supports_incremental_snapshot<staging_sink, grouped_commit_checkpoint>);

namespace {

namespace pg = replicant::test;
using replicant::lsn;

// The engine's side of a checkpoint_context, recorded: what the policy reported persisted, how
// many transactions it released, the halt it decided.
struct recorder final : replicant::detail::delivery_services {
  std::vector<std::pair<lsn, lsn>> reported;
  std::size_t released = 0;
  std::optional<replicant::halt> decided;
  bool stop = false;
  replicant::slot_name name = replicant::slot_name::make("docs_slot").value();

  auto persisted(lsn commit, lsn end) -> void override { reported.emplace_back(commit, end); }
  auto release(replicant::transaction&& /*t*/) noexcept -> void override { ++released; }
  auto halt_with(replicant::halt h) -> void override {
    if (!decided) decided = std::move(h);
  }
  [[nodiscard]] auto halted() const noexcept -> bool override { return decided.has_value(); }
  auto keep_exception(std::exception_ptr /*e*/) noexcept -> void override {}
  [[nodiscard]] auto spill_failure() const noexcept -> std::error_code override { return {}; }
  auto sleep(std::chrono::milliseconds d) noexcept -> void override { std::this_thread::sleep_for(d); }
  [[nodiscard]] auto stopping() const noexcept -> bool override { return stop; }
  auto writing(bool /*on*/) noexcept -> void override {}
  [[nodiscard]] auto slot() const noexcept -> const replicant::slot_name& override { return name; }
  [[nodiscard]] auto budget() const noexcept -> std::size_t override { return std::size_t{1} << 20U; }
  [[nodiscard]] auto events() const noexcept -> replicant::telemetry::dispatcher* override { return nullptr; }
  [[nodiscard]] auto now() const noexcept -> std::chrono::steady_clock::time_point override {
    return std::chrono::steady_clock::now();
  }
};

// Transaction i (from 1) commits at 0x1000 * i and ends 0x20 later.
auto commit_of(int i) -> lsn { return lsn{0x1000U * static_cast<std::uint64_t>(i)}; }
auto end_of(int i) -> lsn { return lsn{0x1000U * static_cast<std::uint64_t>(i) + 0x20U}; }

// @p n committed transactions of one insert each.
auto transactions(int n) -> std::vector<replicant::transaction> {
  std::vector<pg::bytes> messages;
  for (int i = 1; i <= n; ++i) {
    const auto xid = static_cast<std::uint32_t>(700 + i);
    messages.insert(messages.end(), {pg::begin(commit_of(i), 0, xid),
                                     pg::relation(std::nullopt, 16384, "public", "orders", 'd', {{"id", 23, -1, true}}),
                                     pg::insert(std::nullopt, 16384, {pg::col::text(std::to_string(i))}),
                                     pg::commit(commit_of(i), end_of(i), 0)});
  }
  auto t = pg::committed_transactions(messages);
  BOOST_TEST_REQUIRE(t.has_value());
  BOOST_TEST_REQUIRE(t->size() == static_cast<std::size_t>(n));
  return std::move(*t);
}

// A deferred sink that keeps every confirmation for the test to resolve.
struct holding_sink {
  std::vector<replicant::confirmation> out;
  auto checkpoint() -> replicant::result<std::optional<lsn>> { return std::optional<lsn>{}; }
  auto handle_transaction(const replicant::transaction& /*txn*/, replicant::confirmation c) -> replicant::result<void> {
    out.push_back(std::move(c));
    return {};
  }
};

// The exemplar sink, with transaction @p refused failing to stage.
struct refusing_sink : staging_sink {
  lsn refused;
  auto stage(const replicant::transaction& txn) -> replicant::result<void> {
    if (txn.commit_lsn() == refused) return replicant::unexpected(std::make_error_code(std::errc::io_error));
    return staging_sink::stage(txn);
  }
};

template <class Delivery, class Context>
auto tick_until_idle(Delivery& d, Context& ctx) -> void {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (d.holding() && std::chrono::steady_clock::now() < deadline) {
    BOOST_TEST_REQUIRE(d.tick(ctx, std::chrono::steady_clock::now()).has_value());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(docs_checkpoint_policy)

BOOST_AUTO_TEST_CASE(the_pages_quote_their_compiled_exemplars) {
  const auto source = docs_support::read_text(__FILE__);
  for (const auto* name : {"policy_exemplar", "policy_sink", "policy_pipeline"}) {
    docs_support::require_quoted(source, name, "docs/checkpoint/writing_a_policy.md");
  }
  docs_support::require_quoted(source, "deferred_sink", "docs/checkpoint/deferred.md");
}

BOOST_AUTO_TEST_CASE(the_requirements_table_names_every_operation_once) {
  const auto page = docs_support::read_repository_file("docs/checkpoint/writing_a_policy.md");
  const auto requirements = docs_support::section(page, "## Requirements");
  BOOST_TEST_REQUIRE(!requirements.empty());
  for (const auto* expression :
       {"P::delivery<Sink>", "D d(p)", "d.resume(ctx)", "d.deliver(ctx, std::move(t))", "d.tick(ctx, now)",
        "d.flush(ctx)", "d.snapshot_taken(ctx, at)", "cd.holding()", "cd.due()", "cd.resident_bytes()",
        "P::accepts<Sink>", "P::check_sink<Sink>()", "cp.valid()", "p.interrupt()", "d.read_progress(ctx)",
        "d.write_progress(ctx, token)"}) {
    BOOST_TEST(docs_support::rows_naming(requirements, expression).size() == 1U, expression);
  }
  const auto context = docs_support::section(page, "## What the context gives a delivery");
  BOOST_TEST_REQUIRE(!context.empty());
  for (const auto* member :
       {"ctx.sink()", "ctx.slot()", "ctx.budget()", "ctx.stopping()", "ctx.call_sink(f)", "ctx.persisted(commit, end)",
        "ctx.release(std::move(t))", "ctx.sink_failed(at, took, cause)", "ctx.halt_with(h)", "ctx.halted()",
        "ctx.sleep(d)", "ctx.durable_write()", "ctx.emit<Event>(fields...)"}) {
    BOOST_TEST(docs_support::rows_naming(context, member).size() == 1U, member);
  }
}

BOOST_AUTO_TEST_CASE(the_deferred_settings_table_lists_every_member_with_its_default) {
  const auto page = docs_support::read_repository_file("docs/checkpoint/deferred.md");
  const replicant::deferred_checkpoint p{};
  const auto defaults = std::vector<std::pair<const char*, std::string>>{
      {"max_unconfirmed", std::to_string(p.max_unconfirmed)},
      {"max_unconfirmed_bytes", std::to_string(p.max_unconfirmed_bytes)},
      {"confirm_timeout", std::to_string(std::chrono::seconds(30).count()) + " s"}};
  BOOST_TEST((p.confirm_timeout == std::chrono::seconds(30)));
  for (const auto& [member, value] : defaults) {
    const auto rows = docs_support::rows_naming(page, member);
    BOOST_TEST_REQUIRE(rows.size() == 1U, member);
    BOOST_TEST_REQUIRE(rows.front().size() >= 2U);
    BOOST_TEST(rows.front()[1] == value, member);
  }
}

BOOST_AUTO_TEST_CASE(the_exemplar_policy_commits_in_groups_and_reports_each_group_once) {
  staging_sink sink;
  recorder engine;
  replicant::checkpoint_context<staging_sink> ctx{engine, sink};
  grouped_commit_checkpoint settings{.every = 3, .max_delay = std::chrono::seconds(1)};
  grouped_commit_checkpoint::delivery<staging_sink> d{settings};

  BOOST_TEST(!d.resume(ctx).value().has_value());
  auto txns = transactions(4);
  BOOST_TEST_REQUIRE(d.deliver(ctx, std::move(txns[0])).has_value());
  BOOST_TEST_REQUIRE(d.deliver(ctx, std::move(txns[1])).has_value());
  // Staged, not durable: held, reported nothing, released each transaction it is done with.
  BOOST_TEST(d.holding());
  BOOST_TEST(d.due().has_value());
  BOOST_TEST(engine.reported.empty());
  BOOST_TEST(engine.released == 2U);
  BOOST_TEST_REQUIRE(d.deliver(ctx, std::move(txns[2])).has_value());
  BOOST_TEST_REQUIRE(engine.reported.size() == 1U);
  BOOST_TEST(engine.reported.back().first == commit_of(3));
  BOOST_TEST(engine.reported.back().second == end_of(3));
  BOOST_TEST(!d.holding());
  BOOST_TEST(sink.committed.size() == 3U);
  // A group that does not fill up is committed by the timer, and not before.
  BOOST_TEST_REQUIRE(d.deliver(ctx, std::move(txns[3])).has_value());
  const auto due = d.due().value();
  BOOST_TEST_REQUIRE(d.tick(ctx, due - std::chrono::milliseconds(1)).has_value());
  BOOST_TEST(engine.reported.size() == 1U);
  BOOST_TEST_REQUIRE(d.tick(ctx, due).has_value());
  BOOST_TEST_REQUIRE(engine.reported.size() == 2U);
  BOOST_TEST(engine.reported.back().first == commit_of(4));
  BOOST_TEST((sink.stored == commit_of(4)));
  BOOST_TEST(!d.holding());
  BOOST_TEST(!d.due().has_value());
  BOOST_TEST_REQUIRE(d.flush(ctx).has_value());  // nothing held: nothing to do
  BOOST_TEST(engine.reported.size() == 2U);
  BOOST_TEST(engine.released == 4U);
  BOOST_TEST((d.resume(ctx).value() == commit_of(4)));
}

BOOST_AUTO_TEST_CASE(the_exemplar_policy_reports_nothing_past_a_failed_transaction) {
  refusing_sink sink;
  sink.refused = commit_of(2);
  recorder engine;
  replicant::checkpoint_context<refusing_sink> ctx{engine, sink};
  grouped_commit_checkpoint settings{.every = 3, .max_delay = std::chrono::seconds(1)};
  grouped_commit_checkpoint::delivery<refusing_sink> d{settings};
  auto txns = transactions(3);
  BOOST_TEST_REQUIRE(d.deliver(ctx, std::move(txns[0])).has_value());
  BOOST_TEST(!d.deliver(ctx, std::move(txns[1])).has_value());
  BOOST_TEST_REQUIRE(engine.decided.has_value());
  BOOST_TEST((engine.decided->reason == replicant::halt_reason::sink_failed));
  BOOST_TEST((engine.decided->cause == std::errc::io_error));
  BOOST_TEST((engine.decided->at == commit_of(2)));
  // Halted: the staged group is never committed, by a flush or a timer.
  BOOST_TEST(!d.flush(ctx).has_value());
  BOOST_TEST(!d.tick(ctx, std::chrono::steady_clock::now() + std::chrono::hours(1)).has_value());
  BOOST_TEST(engine.reported.empty());
  BOOST_TEST(sink.committed.empty());
}

BOOST_AUTO_TEST_CASE(the_exemplar_policy_makes_a_pipeline_that_checks_its_settings_before_connecting) {
  staging_sink sink;
  replicant::pipeline_options o;
  o.conninfo = "dbname=shop";
  o.slot = "shop_grouped";
  const replicant::pgoutput_options pg{.publications = {"shop_pub"}};
  auto invalid = grouped{sink, pg, grouped_commit_checkpoint{.every = 0}, o};
  std::error_code ec;
  invalid.run(ec);
  BOOST_TEST(ec == replicant::errc::halted);
  BOOST_TEST_REQUIRE(invalid.last_halt().has_value());
  BOOST_TEST((invalid.last_halt()->reason == replicant::halt_reason::config_invalid));
  BOOST_TEST(sink.committed.empty());
}

BOOST_AUTO_TEST_CASE(the_deferred_exemplar_sink_is_acknowledged_from_its_worker) {
  worker_sink sink;
  recorder engine;
  replicant::checkpoint_context<worker_sink> ctx{engine, sink};
  replicant::deferred_checkpoint settings{.max_unconfirmed = 2};
  {
    replicant::deferred_checkpoint::delivery<worker_sink> d{settings};
    BOOST_TEST(!d.resume(ctx).value().has_value());
    for (auto& t : transactions(5)) BOOST_TEST_REQUIRE(d.deliver(ctx, std::move(t)).has_value());
    tick_until_idle(d, ctx);
    BOOST_TEST(!d.holding());
  }
  BOOST_TEST(!engine.decided.has_value());
  BOOST_TEST_REQUIRE(!engine.reported.empty());
  BOOST_TEST(engine.reported.back().first == commit_of(5));
  BOOST_TEST(engine.reported.back().second == end_of(5));
  for (std::size_t i = 1; i < engine.reported.size(); ++i) {
    BOOST_TEST(engine.reported[i - 1].first < engine.reported[i].first);  // never backwards
  }
  BOOST_TEST(engine.released == 5U);
  BOOST_TEST(sink.published() == 5U);
  BOOST_TEST((sink.checkpoint().value() == commit_of(5)));
}

BOOST_AUTO_TEST_CASE(deferred_acknowledges_the_highest_contiguous_confirmed_commit) {
  holding_sink sink;
  recorder engine;
  replicant::checkpoint_context<holding_sink> ctx{engine, sink};
  replicant::deferred_checkpoint settings{};
  replicant::deferred_checkpoint::delivery<holding_sink> d{settings};
  for (auto& t : transactions(3)) BOOST_TEST_REQUIRE(d.deliver(ctx, std::move(t)).has_value());
  BOOST_TEST(engine.released == 3U);  // handed off: the sink copied what it needed
  sink.out[2].confirm();
  sink.out[1].confirm();
  BOOST_TEST_REQUIRE(d.tick(ctx, std::chrono::steady_clock::now()).has_value());
  BOOST_TEST(engine.reported.empty());  // the first is out: nothing after it
  BOOST_TEST(d.holding());
  sink.out[0].confirm();
  sink.out[0].fail(std::make_error_code(std::errc::io_error));  // the first call won
  BOOST_TEST_REQUIRE(d.tick(ctx, std::chrono::steady_clock::now()).has_value());
  BOOST_TEST_REQUIRE(engine.reported.size() == 1U);
  BOOST_TEST(engine.reported.back().first == commit_of(3));
  BOOST_TEST(engine.reported.back().second == end_of(3));
  BOOST_TEST(!d.holding());
  BOOST_TEST(!engine.decided.has_value());
}

BOOST_AUTO_TEST_CASE(deferred_halts_on_a_reported_failure_and_acknowledges_nothing_past_it) {
  holding_sink sink;
  recorder engine;
  replicant::checkpoint_context<holding_sink> ctx{engine, sink};
  replicant::deferred_checkpoint settings{};
  replicant::deferred_checkpoint::delivery<holding_sink> d{settings};
  for (auto& t : transactions(3)) BOOST_TEST_REQUIRE(d.deliver(ctx, std::move(t)).has_value());
  sink.out[0].confirm();
  sink.out[2].confirm();
  sink.out[1].fail(std::make_error_code(std::errc::connection_refused));
  BOOST_TEST(!d.tick(ctx, std::chrono::steady_clock::now()).has_value());
  BOOST_TEST_REQUIRE(engine.decided.has_value());
  BOOST_TEST((engine.decided->reason == replicant::halt_reason::sink_failed));
  BOOST_TEST((engine.decided->cause == std::errc::connection_refused));
  BOOST_TEST((engine.decided->at == commit_of(2)));
  BOOST_TEST_REQUIRE(engine.reported.size() == 1U);
  BOOST_TEST(engine.reported.back().first == commit_of(1));
}

BOOST_AUTO_TEST_CASE(deferred_halts_timed_out_when_a_confirmation_does_not_come) {
  holding_sink sink;
  recorder engine;
  replicant::checkpoint_context<holding_sink> ctx{engine, sink};
  replicant::deferred_checkpoint settings{.confirm_timeout = std::chrono::milliseconds(50)};
  replicant::deferred_checkpoint::delivery<holding_sink> d{settings};
  for (auto& t : transactions(2)) BOOST_TEST_REQUIRE(d.deliver(ctx, std::move(t)).has_value());
  sink.out[1].confirm();
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  BOOST_TEST(!d.tick(ctx, std::chrono::steady_clock::now()).has_value());
  BOOST_TEST_REQUIRE(engine.decided.has_value());
  BOOST_TEST((engine.decided->reason == replicant::halt_reason::sink_failed));
  BOOST_TEST((engine.decided->cause == std::errc::timed_out));
  BOOST_TEST((engine.decided->at == commit_of(1)));
  BOOST_TEST(engine.reported.empty());
}

BOOST_AUTO_TEST_CASE(deferred_paces_on_a_full_window_rather_than_halting) {
  holding_sink sink;
  recorder engine;
  replicant::checkpoint_context<holding_sink> ctx{engine, sink};
  replicant::deferred_checkpoint settings{.max_unconfirmed = 1};
  replicant::deferred_checkpoint::delivery<holding_sink> d{settings};
  auto txns = transactions(2);
  BOOST_TEST_REQUIRE(d.deliver(ctx, std::move(txns[0])).has_value());
  const auto first = sink.out.front();
  std::jthread later{[first] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    first.confirm();
  }};
  const auto started = std::chrono::steady_clock::now();
  BOOST_TEST_REQUIRE(d.deliver(ctx, std::move(txns[1])).has_value());  // waits for room
  BOOST_TEST((std::chrono::steady_clock::now() - started >= std::chrono::milliseconds(90)));
  BOOST_TEST(!engine.decided.has_value());
  BOOST_TEST_REQUIRE(engine.reported.size() == 1U);
  BOOST_TEST(engine.reported.back().first == commit_of(1));
  BOOST_TEST(sink.out.size() == 2U);
}

BOOST_AUTO_TEST_CASE(deferred_waits_at_a_stop_for_what_is_out) {
  holding_sink sink;
  recorder engine;
  replicant::checkpoint_context<holding_sink> ctx{engine, sink};
  replicant::deferred_checkpoint settings{.confirm_timeout = std::chrono::seconds(5)};
  replicant::deferred_checkpoint::delivery<holding_sink> d{settings};
  for (auto& t : transactions(2)) BOOST_TEST_REQUIRE(d.deliver(ctx, std::move(t)).has_value());
  std::jthread later{[first = sink.out[0], second = sink.out[1]] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    first.confirm();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    second.confirm();
  }};
  engine.stop = true;
  // Both are confirmed well within their timeout: the stop's flush waits for them, then
  // acknowledges both.
  BOOST_TEST_REQUIRE(d.flush(ctx).has_value());
  BOOST_TEST_REQUIRE(!engine.reported.empty());
  BOOST_TEST(engine.reported.back().first == commit_of(2));
  BOOST_TEST(!d.holding());
}

BOOST_AUTO_TEST_CASE(deferred_ignores_a_confirmation_of_an_earlier_connection) {
  holding_sink sink;
  recorder engine;
  replicant::checkpoint_context<holding_sink> ctx{engine, sink};
  replicant::deferred_checkpoint settings{};
  {
    replicant::deferred_checkpoint::delivery<holding_sink> before{settings};
    BOOST_TEST_REQUIRE(before.deliver(ctx, std::move(transactions(1).front())).has_value());
  }  // the connection ended with the transaction out
  replicant::deferred_checkpoint::delivery<holding_sink> after{settings};
  BOOST_TEST_REQUIRE(after.deliver(ctx, std::move(transactions(1).front())).has_value());  // delivered again
  BOOST_TEST_REQUIRE(sink.out.size() == 2U);
  sink.out[0].fail(std::make_error_code(std::errc::io_error));  // late, from the old connection: ignored
  BOOST_TEST_REQUIRE(after.tick(ctx, std::chrono::steady_clock::now()).has_value());
  BOOST_TEST(!engine.decided.has_value());
  sink.out[1].confirm();
  BOOST_TEST_REQUIRE(after.tick(ctx, std::chrono::steady_clock::now()).has_value());
  BOOST_TEST_REQUIRE(engine.reported.size() == 1U);
  BOOST_TEST(engine.reported.back().first == commit_of(1));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // docs_checkpoint_policy_tests
