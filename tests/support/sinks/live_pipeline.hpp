// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_SINKS_LIVE_PIPELINE_HPP
#define REPLICANT_TESTS_SUPPORT_SINKS_LIVE_PIPELINE_HPP

// What the live pipeline tests share: a database with a published table and the options to stream
// it, a pipeline running on its own thread, a telemetry recorder, and what the halts a pipeline
// ends in are held to (a refusal for good, a slot's invalidation). Boost.Test only: include it
// after the test module's <boost/test/unit_test.hpp>.

#include <boost/test/unit_test.hpp>

#include "support/checks/catalog_audit.hpp"
#include "support/checks/value_free_audit.hpp"
#include "support/common/time_scale.hpp"
#include "support/server/pg_cluster.hpp"
#include "support/sinks/dedup_checkpoint.hpp"

#include <replicant/core/halt.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/model/schema_change.hpp>
#include <replicant/model/transaction.hpp>
#include <replicant/pipeline/options.hpp>
#include <replicant/sink/vocabulary.hpp>
#include <replicant/telemetry/telemetry.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

namespace replicant::test {

// One delivered row, reduced to what the tests compare.
struct seen {
  std::string op;
  std::string id;
  replicant::lsn commit;
};

// A sink that keeps everything in memory, with its checkpoint: what a real sink stores atomically.
// Its behaviour can be switched per test (fail, throw, veto, slow down).
struct memory_sink : dedup_checkpoint {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<seen> rows;
  std::vector<replicant::lsn> commits;
  std::function<replicant::result<void>(const replicant::transaction&)> before_store;  // may fail or throw
  std::function<replicant::result<void>(const replicant::schema_change&)> on_schema_change;
  std::vector<replicant::schema_change_context> schema_change_contexts;  // of every call of the hook, in order
  int messages = 0;
  std::size_t repeats = 0;  // deliveries at or below the stored checkpoint (the library's to prevent)

  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> {
    const std::lock_guard lock{mutex};
    return dedup_checkpoint::checkpoint();
  }

  auto handle_transaction(const replicant::transaction& t) -> replicant::result<replicant::lsn> {
    if (before_store) {
      if (auto r = before_store(t); !r) return replicant::unexpected(r.error());
    }
    const std::lock_guard lock{mutex};
    if (already_applied(t)) {
      // The dedup a real sink does, kept apart from counting: the library skips what is at or
      // below the checkpoint it read at connect, so a repeat here is its fault, and fails the
      // test program (support/checks/value_free_audit.hpp), whichever test it came from.
      ++repeats;
      audit::finding("a transaction delivered again at or below the sink's checkpoint");
      return t.commit_lsn();
    }
    for (const auto& c : t.changes()) {
      const auto tuple = c.op() == replicant::change_op::delete_ ? c.old() : c.record();
      const auto id = tuple.value("id");
      std::string text = "?";
      if (id && id->holds<std::int64_t>()) text = std::to_string(id->get<std::int64_t>());
      rows.push_back({std::string{replicant::to_string(c.op())}, text, t.commit_lsn()});
    }
    commits.push_back(t.commit_lsn());
    store(t.commit_lsn());
    changed.notify_all();
    return t.commit_lsn();
  }

  auto handle_schema_change(const replicant::schema_change& c, const replicant::schema_change_context& ctx)
      -> replicant::result<void> {
    {
      const std::lock_guard lock{mutex};
      schema_change_contexts.push_back(ctx);
    }
    if (on_schema_change) return on_schema_change(c);
    return replicant::fail(replicant::errc::sink_failed);
  }

  auto handle_message(const replicant::logical_message&, const replicant::message_context&) -> replicant::result<void> {
    const std::lock_guard lock{mutex};
    ++messages;
    changed.notify_all();
    return {};
  }

  auto wait_for_rows(std::size_t n, std::chrono::seconds timeout = std::chrono::seconds(30)) -> bool {
    std::unique_lock lock{mutex};
    return changed.wait_for(lock, timeout, [&] { return rows.size() >= n; });
  }

  auto snapshot() -> std::vector<seen> {
    const std::lock_guard lock{mutex};
    return rows;
  }
};

/// Records every telemetry event as text, to check sequences and that no value leaks; each event is
/// also held against its catalog entry (support/checks/catalog_audit.hpp).
struct event_log {
  replicant::telemetry::dispatcher dispatcher;
  std::mutex mutex;
  std::vector<std::string> lines;

  event_log() {
    dispatcher.attach([this](const replicant::telemetry::event_record& e) {
      auto line = replicant::telemetry::to_string(e);
      audit::note("telemetry event", line);
      audit::check_catalog(e);
      const std::lock_guard lock{mutex};
      lines.push_back(std::move(line));
    });
  }
  event_log(const event_log&) = delete;
  auto operator=(const event_log&) -> event_log& = delete;

  /// How many events contain @p text.
  auto count(std::string_view text) -> std::size_t {
    const std::lock_guard lock{mutex};
    std::size_t n = 0;
    for (const auto& l : lines) n += l.find(text) != std::string::npos ? 1U : 0U;
    return n;
  }
  /// Whether any event contains @p text.
  auto contains(std::string_view text) -> bool { return count(text) > 0; }
  /// Whether a `replicant.connection.disconnected` event carried `reason=<reason>` (the whole
  /// name): how a live test checks that a halt it provoked was reported. tests/halts_provoked.txt
  /// records which case does so for which reason (tests/unit/core/halt_coverage.cpp reads it).
  auto disconnected(replicant::halt_reason reason) -> bool {
    constexpr std::string_view event = "replicant.connection.disconnected ";
    const std::string key = " reason=" + std::string{replicant::to_string(reason)};
    const std::lock_guard lock{mutex};
    for (const auto& l : lines) {
      if (l.rfind(event, 0) != 0) continue;
      const auto at = l.find(key);
      if (at != std::string::npos && (at + key.size() == l.size() || l[at + key.size()] == ' ')) return true;
    }
    return false;
  }
  /// The last @p n events that contain @p text, oldest first: what a failed wait prints to say what
  /// the pipeline did (telemetry is value-free, and audited to be).
  auto last(std::size_t n, std::string_view text) -> std::string {
    const std::lock_guard lock{mutex};
    std::vector<const std::string*> hits;
    for (const auto& l : lines) {
      if (l.find(text) != std::string::npos) hits.push_back(&l);
    }
    std::string out;
    for (auto i = hits.size() > n ? hits.size() - n : 0; i < hits.size(); ++i) out += "\n  " + *hits[i];
    return out;
  }
};

/// The event that reports a slot_invalidated halt of class @p kind (a slot_invalidation's name) for
/// @p slot, as event_log records it: the class is both its `reason` (the reference's key) and its
/// `kind`.
[[nodiscard]] inline auto invalidated_event(const std::string& slot, std::string_view kind) -> std::string {
  return "replicant.connection.slot_invalidated slot_name=" + slot + " reason=" + std::string{kind} +
         " kind=" + std::string{kind};
}

/// A fresh database on the live server with `items (id int PRIMARY KEY, label text, qty int)` in
/// publication `pub`, a slot name of its own, pgoutput options asking for `pub`, and pipeline
/// options streaming it from now on with short timers. The slot is dropped afterwards if nothing uses it.
struct published_database {
  pg_cluster& pg = live_server();
  std::string db = pg.unique_name("pipe");
  std::string slot = pg.unique_name("slot");
  replicant::pipeline_options options;
  replicant::pgoutput_options pgoutput{.publications = {"pub"}};

  published_database() {
    pg.create_database(db);
    pg.sql(
        "CREATE TABLE items (id int PRIMARY KEY, label text, qty int); "
        "CREATE PUBLICATION pub FOR TABLE items",
        db);
    options.conninfo = pg.dsn(db);
    options.slot = slot;
    options.start = replicant::start::go_forward{};
    options.status_interval = std::chrono::seconds(1);
    options.reconnect_delay = std::chrono::milliseconds(50);
    options.max_reconnect_delay = std::chrono::milliseconds(500);
  }
  ~published_database() {
    try {
      pg.sql("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '" + slot +
             "' AND NOT active");
    } catch (...) {
    }
  }
  published_database(const published_database&) = delete;
  auto operator=(const published_database&) -> published_database& = delete;

  /// Runs @p s in the database.
  auto sql(const std::string& s) { return pg.sql(s, db); }

  [[nodiscard]] auto slot_exists() -> bool {
    return pg.scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "'") == "1";
  }
  [[nodiscard]] auto slot_active() -> bool {
    // A slot being created is active too (its walsender holds it while it looks for a consistent
    // point), with no confirmed position yet: only once it has one is it being streamed from.
    return pg.scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot +
                     "' AND active AND confirmed_flush_lsn IS NOT NULL") == "1";
  }
  /// Waits until the slot streams, commits row 1 of `items`, and waits until @p sink has it.
  /// @return whether both happened in time.
  template <class Sink>
  auto first_row_delivered(Sink& sink) -> bool {
    if (!wait_until([&] { return slot_active(); })) return false;
    sql("INSERT INTO items VALUES (1, 'a', 1)");
    return sink.wait_for_rows(1);
  }
  /// The slot's acknowledged position.
  [[nodiscard]] auto confirmed_flush() -> replicant::lsn {
    return replicant::parse_lsn(
               pg.scalar("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" + slot + "'"))
        .value();
  }

  /// The server's current WAL write position: anything committed after this call lies past it.
  [[nodiscard]] auto wal_position() -> replicant::lsn {
    return replicant::parse_lsn(pg.scalar("SELECT pg_current_wal_lsn()")).value();
  }

  /// Waits until the slot's walsender has processed a status update the pipeline sent after this
  /// call began, so that what the slot says it acknowledged (confirmed_flush()) is the pipeline's
  /// answer as of now. Two updates are waited for: the server notes an update's time just before
  /// it moves the slot, so only the second one proves the first was applied. Replaces a sleep of
  /// "more than a status interval" with what that sleep hoped for. False after @p timeout.
  auto wait_for_status_update(std::chrono::seconds timeout = std::chrono::seconds(30)) -> bool {
    return wait_for_status_update(slot, timeout);
  }
  /// wait_for_status_update() for the pipeline that streams from the slot @p of_slot.
  auto wait_for_status_update(const std::string& of_slot, std::chrono::seconds timeout = std::chrono::seconds(30))
      -> bool {
    const auto reply_time = [&] {
      return pg.scalar(
          "SELECT coalesce((SELECT r.reply_time FROM pg_stat_replication r JOIN pg_replication_slots s "
          "ON s.active_pid = r.pid WHERE s.slot_name = '" +
          of_slot + "')::text, '')");
    };
    const auto after = [&](const std::string& since) {
      return test::wait_until(
          [&] {
            const auto now = reply_time();
            return !now.empty() && pg.scalar("SELECT '" + now + "'::timestamptz > '" + since + "'::timestamptz") == "t";
          },
          timeout);
    };
    const std::string began = pg.scalar("SELECT clock_timestamp()::text");
    if (!after(began)) return false;
    return after(reply_time());
  }

  static auto wait_until(const std::function<bool()>& cond, std::chrono::seconds timeout = std::chrono::seconds(30))
      -> bool {
    return test::wait_until(cond, timeout);
  }
};

/// What a pipeline's telemetry said about its halts: the reasons `connection.disconnected` carried,
/// and whether `sink.failed` was emitted (for a sink's failure, and for a spill storage's).
struct halt_telemetry {
  std::mutex mutex;
  std::set<replicant::halt_reason> disconnected;
  bool sink_failed = false;

  auto take(const replicant::telemetry::event_record& e) -> void {
    const std::lock_guard lock{mutex};
    if (e.name == replicant::telemetry::events::sink_failed::name) sink_failed = true;
    if (e.name != replicant::telemetry::events::connection_disconnected::name) return;
    if (const auto* reason = e.find("reason")) {
      if (const auto* r = std::get_if<replicant::halt_reason>(reason)) disconnected.insert(*r);
    }
  }
  /// Whether a halt for @p reason was reported as every halt must be: `connection.disconnected`
  /// with its reason, and a sink's or a spill storage's failure as `sink.failed` too.
  auto reported(replicant::halt_reason reason) -> bool {
    const std::lock_guard lock{mutex};
    const bool as_sink_failure =
        reason == replicant::halt_reason::sink_failed || reason == replicant::halt_reason::spill_io_failed;
    return disconnected.count(reason) == 1U && (!as_sink_failure || sink_failed);
  }
};

/// Runs a pipeline (constructed from the given arguments) on its own thread for a scope. When one
/// of the arguments is a telemetry dispatcher, the halt the pipeline ends in is held against its
/// events: a halt without `connection.disconnected` (and, for a sink's failure, `sink.failed`) is
/// a finding of the suite-wide audit, which fails the test program.
template <class Pipeline>
struct running {
  Pipeline pipeline;
  std::error_code ec;
  std::atomic<bool> ended{false};  // run() returned (ec and the pipeline's last_halt() are final)
  replicant::telemetry::dispatcher* events = nullptr;
  std::optional<replicant::telemetry::handler_id> watch;
  std::shared_ptr<halt_telemetry> halts = std::make_shared<halt_telemetry>();
  std::thread thread;

  template <class... Args>
  explicit running(Args&&... args) : pipeline(std::forward<Args>(args)...) {
    (find_dispatcher(args), ...);
    if (events != nullptr) {
      watch = events->attach([h = halts](const replicant::telemetry::event_record& e) { h->take(e); });
    }
    thread = std::thread([this] {
      pipeline.run(ec);
      ended.store(true);
    });
  }
  /// Whether run() returns by itself within @p timeout; after true, join() does not block.
  auto ends_within(std::chrono::seconds timeout) -> bool {
    return test::wait_until([this] { return ended.load(); }, timeout);
  }
  /// Stops the pipeline and returns how run() ended.
  auto stop() -> std::error_code {
    pipeline.stop();
    return join();
  }
  /// Waits for the pipeline to halt by itself.
  auto join() -> std::error_code {
    if (thread.joinable()) {
      thread.join();
      audit::note("pipeline error", ec.message());
      if (const auto& h = pipeline.last_halt()) audit::note("halt description", replicant::describe(*h));
      check_halt_telemetry();
    }
    return ec;
  }
  /// Waits for the pipeline to halt by itself and returns why: the reason of its last_halt() when
  /// run() reported `errc::halted`, else `halt_reason{}` (which names no reason, so that comparing
  /// it with any reason fails and prints `unknown`).
  auto halted() -> replicant::halt_reason {
    const auto code = join();
    const auto& h = pipeline.last_halt();
    return code == replicant::errc::halted && h ? h->reason : replicant::halt_reason{};
  }
  ~running() { stop(); }
  running(const running&) = delete;
  auto operator=(const running&) -> running& = delete;

 private:
  auto find_dispatcher(replicant::telemetry::dispatcher* d) -> void { events = d; }
  template <class T>
  auto find_dispatcher(const T&) -> void {}

  auto check_halt_telemetry() -> void {
    if (events == nullptr || !watch) return;
    static_cast<void>(events->detach(*watch));
    watch.reset();
    const auto& h = pipeline.last_halt();
    if (ec != replicant::errc::halted || !h || halts->reported(h->reason)) return;
    audit::finding("a halt without its telemetry: " + std::string{replicant::to_string(h->reason)});
  }
};

/// The invalidation class of the halt the pipeline of @p r ended with, by name; "none" without one.
template <class Pipeline>
[[nodiscard]] auto invalidation_class(running<Pipeline>& r) -> std::string {
  const auto& h = r.pipeline.last_halt();
  return h && h->invalidation ? std::string{replicant::to_string(*h->invalidation)} : std::string{"none"};
}

/**
 * Runs a @p Pipeline over a memory_sink of its own on @p f's publication with options @p o (which
 * the server must refuse for good), its telemetry going to @p events, until it halts by itself: it
 * must within 30 s, or it kept retrying. Then checks what such a refusal holds to: the halt carries
 * @p sqlstate, its cause is errc::connection_refused, no slot was made, and neither the halt's
 * description nor any event names any of @p names (what the case keeps secret: a password, a role,
 * the database, a host, a file).
 *
 * @return the halt's reason, which the case checks with its event (tests/halts_provoked.txt
 *   records the case).
 */
template <class Pipeline>
auto refused_halt(published_database& f, const replicant::pipeline_options& o, event_log& events,
                  const std::optional<std::string>& sqlstate, const std::vector<std::string>& names)
    -> replicant::halt_reason {
  memory_sink sink;
  running<Pipeline> r{sink, f.pgoutput, o, &events.dispatcher};
  BOOST_TEST_REQUIRE(r.ends_within(std::chrono::seconds(30)), "it kept retrying");
  const auto reason = r.halted();
  const auto& h = r.pipeline.last_halt();
  BOOST_TEST_REQUIRE(h.has_value());
  BOOST_TEST((h->sqlstate == sqlstate));
  BOOST_TEST(h->cause == replicant::errc::connection_refused);
  const auto text = replicant::describe(*h);
  for (const auto& name : names) {
    BOOST_TEST(text.find(name) == std::string::npos, "the halt names " << name);
    BOOST_TEST(!events.contains(name), "an event names " << name);
  }
  BOOST_TEST(!f.slot_exists(), "nothing was created");
  return reason;
}

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_SINKS_LIVE_PIPELINE_HPP
