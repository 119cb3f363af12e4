// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-getting-started: a guided tour of replicant that checks itself. Give it a database it
// may create a table in; it walks six steps and prints `ok: ...` after each one whose result it
// verified, or stops at the first wrong result with a message and exit status 1:
//
//   1. a table with a TOASTable column, a publication, three rows;
//   2. a replication pipeline starts with `snapshot = true`: the existing rows arrive through
//      handle_snapshot(), then streaming takes over;
//   3. an insert, an update and a delete flow to the sink;
//   4. an UPDATE that leaves the TOASTed column alone shows it in change.unchanged();
//   5. a transactional logical message rides its transaction, a non-transactional one arrives
//      through handle_message();
//   6. the pipeline stops, rows are written meanwhile, a new pipeline resumes from the sink's
//      checkpoint: exactly the new transactions arrive, none twice.
//
// Read it top to bottom: first the sink (the part you write for your own application), then the
// tour that drives it. docs/getting_started.md walks through the same code.

#include "../common/cli.hpp"

#include <replicant/checkpoint/sink_owned.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/model/mapping.hpp>
#include <replicant/model/rows.hpp>
#include <replicant/model/transaction.hpp>
#include <replicant/pipeline.hpp>
#include <replicant/pq/connection.hpp>
#include <replicant/snapshot/batch.hpp>
#include <replicant/spill/none.hpp>

#include <boost/hana/define_struct.hpp>

#include <range/v3/view/filter.hpp>
#include <range/v3/view/transform.hpp>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace {

using namespace std::chrono_literals;
using replicant::lsn;

// ---------------------------------------------------------------------------------------------
// Part 1: the sink
// ---------------------------------------------------------------------------------------------

// change.as<item>() fills an `item` from a row, member by member, matching member names to column
// names. `notes` is deliberately not a member: it is the TOASTable column, which an UPDATE that
// does not touch it leaves out of the row (step 4), so the sink reads it by hand.
struct item {
  BOOST_HANA_DEFINE_STRUCT(item, (std::int32_t, id), (std::string, name), (std::int32_t, qty));
};

// A delete carries only the old key.
struct item_key {
  BOOST_HANA_DEFINE_STRUCT(item_key, (std::int32_t, id));
};

// What the mirror keeps of one row. The length of `notes` stands in for its text, which keeps the
// comparison with the table cheap.
struct mirrored_row {
  std::string name;
  std::int32_t qty = 0;
  std::optional<std::size_t> notes_length;  // none: NULL

  friend auto operator==(const mirrored_row&, const mirrored_row&) -> bool = default;
};

using table_state = std::map<std::int32_t, mirrored_row>;

// One streamed change as the tour checks it afterwards.
struct seen_change {
  replicant::change_op op{};
  std::int32_t id = 0;
  std::vector<std::string> unchanged;  // change.unchanged(): TOASTed columns the server left out
};

// Everything the sink has stored or seen, copied out for the tour to check.
struct observations {
  table_state rows;
  std::optional<lsn> checkpoint;
  std::uint64_t snapshot_rows = 0;
  bool snapshot_complete = false;
  std::vector<lsn> applied;   // commit LSNs of the transactions applied, in order
  std::uint64_t replays = 0;  // transactions handed over again at or below the checkpoint
  std::vector<seen_change> changes;
  std::vector<std::string> transactional_messages;
  std::vector<std::string> standalone_messages;
  std::vector<std::string> names_written;  // item names inserted or updated, through a typed view
};

// The prefix of the logical messages the tour emits; messages with other prefixes are ignored.
constexpr std::string_view message_prefix = "replicant.tour";

// A state mirror in memory: the table's rows plus the checkpoint, stored together. A real sink
// does the same in its own database, in one transaction per call: that atomicity is what turns
// replicant's at-least-once delivery into exactly-once in effect.
//
// The pipeline calls the five `handle_*`/`checkpoint` members, one at a time, on its applier
// thread; the tour reads what they stored from the main thread, hence the mutex.
class mirror_sink {
 public:
  // A mirror of the table @p table (in schema public).
  explicit mirror_sink(std::string table) : table_(std::move(table)) {}

  /// The optional hooks it implements, checked against its members at compile time.
  static constexpr replicant::hook hooks =
      replicant::hook::message | replicant::hook::snapshot | replicant::hook::snapshot_complete;

  // Where to resume: the commit LSN of the last transaction stored, or nothing before the first.
  // Asked at every connect.
  auto checkpoint() -> replicant::result<std::optional<lsn>> {
    const std::lock_guard lock{mutex_};
    return seen_.checkpoint;
  }

  // The snapshot (start mode `snapshot`): the rows that existed when the slot was created, in
  // batches. The first batch of a table clears it, so that a snapshot taken again after an
  // interruption leaves nothing stale behind.
  auto handle_snapshot(const replicant::snapshot_batch& batch, const replicant::snapshot_context& context)
      -> replicant::result<void> {
    const std::lock_guard lock{mutex_};
    table_state rows = context.first_for_table ? table_state{} : seen_.rows;
    for (const replicant::change& c : batch) {
      if (auto applied = apply(rows, c); !applied) return applied;
    }
    seen_.rows = std::move(rows);
    seen_.snapshot_rows += batch.size();
    watch("snapshot batch: " + std::to_string(batch.size()) + " rows");
    return {};
  }

  // Every batch is stored: streaming takes over at `at`, which becomes the checkpoint.
  auto handle_snapshot_complete(lsn at) -> replicant::result<void> {
    const std::lock_guard lock{mutex_};
    seen_.checkpoint = at;
    seen_.snapshot_complete = true;
    watch("snapshot complete; streaming takes over at " + replicant::to_string(at));
    changed_.notify_all();
    return {};
  }

  // One committed transaction. Applied to a copy, then the rows and the checkpoint are replaced
  // together: all of it or none of it, as one database transaction would do.
  auto handle_transaction(const replicant::transaction& txn) -> replicant::result<lsn> {
    const std::lock_guard lock{mutex_};
    // The exactly-once rule: what is at or below the checkpoint is stored already. Skip it, and
    // still return its LSN so the slot may move past it.
    if (seen_.checkpoint && txn.commit_lsn() <= *seen_.checkpoint) {
      ++seen_.replays;
      return txn.commit_lsn();
    }
    table_state rows = seen_.rows;
    std::vector<seen_change> changes;
    std::string ops;
    for (const replicant::change& c : txn.changes()) {
      if (auto applied = apply(rows, c); !applied) return replicant::unexpected(applied.error());
      seen_change seen{.op = c.op(), .id = 0, .unchanged = {}};
      if (c.op() != replicant::change_op::truncate) {
        auto key = c.op() == replicant::change_op::delete_ ? c.old_as<item_key>() : c.as<item_key>();
        if (!key) return replicant::unexpected(key.error());
        seen.id = key->id;
      }
      for (const std::string_view column : c.unchanged()) seen.unchanged.emplace_back(column);
      ops += (ops.empty() ? "" : ", ") + std::string{replicant::to_string(c.op())};
      if (!seen.unchanged.empty()) ops += " leaving out " + join(seen.unchanged);
      changes.push_back(std::move(seen));
    }
    // The same changes seen through a typed view, composed with range-v3's views like any range
    // (std::views work alike, with a toolchain that compiles them; Clang 14 with libstdc++ 12 does
    // not): the name of every item inserted or updated, mapped onto `item`.
    std::vector<std::string> names;
    const replicant::table_ref items{"public", table_};
    for (auto&& name : replicant::rows<item>(txn, items) | ranges::views::filter([](const auto& row) {
                         return row.has_value();
                       }) | ranges::views::transform([](auto&& row) { return std::move(row->name); })) {
      names.push_back(std::move(name));
    }
    // A transaction spilled to disk (under disk_spill) whose file cannot be read back ends the loops
    // above early instead of throwing: store nothing of it, and return why. (This tour does not
    // spill, so the check never fires here; a sink that might be given a spilled transaction needs it.)
    if (const auto ec = txn.read_error()) return replicant::unexpected(ec);
    // Transactional logical messages ride their transaction: stored with it, exactly once.
    std::vector<std::string> messages;
    for (const replicant::logical_message& m : txn.messages()) {
      if (m.prefix == message_prefix) messages.emplace_back(content_of(m));
    }

    seen_.rows = std::move(rows);
    seen_.checkpoint = txn.commit_lsn();
    seen_.applied.push_back(txn.commit_lsn());
    seen_.changes.insert(seen_.changes.end(), changes.begin(), changes.end());
    seen_.transactional_messages.insert(seen_.transactional_messages.end(), messages.begin(), messages.end());
    seen_.names_written.insert(seen_.names_written.end(), names.begin(), names.end());
    watch("transaction " + replicant::to_string(txn.commit_lsn()) + ": " + ops +
          (messages.empty() ? "" : " + " + std::to_string(messages.size()) + " message"));
    changed_.notify_all();
    return txn.commit_lsn();
  }

  // A non-transactional logical message (pgoutput_options::messages). It belongs to no transaction,
  // so no checkpoint covers it: it is delivered at least once.
  auto handle_message(const replicant::logical_message& m, const replicant::message_context& /*context*/)
      -> replicant::result<void> {
    if (m.prefix != message_prefix) return {};
    const std::lock_guard lock{mutex_};
    seen_.standalone_messages.emplace_back(content_of(m));
    watch("message on its own, at " + replicant::to_string(m.message_lsn));
    changed_.notify_all();
    return {};
  }

  // --- for the tour (main thread) ---

  // Waits up to @p timeout until @p ready holds for what the sink has seen; then or at the
  // timeout, a copy of it.
  template <class Ready>
  auto wait_until(Ready ready, std::chrono::milliseconds timeout) -> observations {
    std::unique_lock lock{mutex_};
    changed_.wait_for(lock, timeout, [&] { return ready(seen_); });
    return seen_;
  }

  // A copy of what the sink has seen.
  auto look() -> observations {
    const std::lock_guard lock{mutex_};
    return seen_;
  }

 private:
  // Applies one change to @p rows.
  static auto apply(table_state& rows, const replicant::change& c) -> replicant::result<void> {
    switch (c.op()) {
      case replicant::change_op::snapshot:
      case replicant::change_op::insert:
      case replicant::change_op::update: {
        auto row = c.as<item>();  // an error names the member and its column, never a value
        if (!row) return replicant::unexpected(row.error());
        mirrored_row stored;
        if (auto found = rows.find(row->id); found != rows.end()) stored = found->second;
        stored.name = std::move(row->name);
        stored.qty = row->qty;
        // An unchanged TOAST column has no value in the change: keep the one stored.
        const auto notes = c.record().find("notes");
        if (!notes) return replicant::fail(replicant::errc::column_missing);
        if (!notes->is_unchanged()) {
          auto v = notes->value();
          if (!v) return replicant::unexpected(v.error());
          const auto* text = v->get_if<replicant::text>();
          stored.notes_length = text ? std::optional<std::size_t>{text->size()} : std::nullopt;
        }
        rows[row->id] = std::move(stored);
        return {};
      }
      case replicant::change_op::delete_: {
        auto key = c.old_as<item_key>();  // the old key (as<T>(row) maps any row)
        if (!key) return replicant::unexpected(key.error());
        rows.erase(key->id);
        return {};
      }
      case replicant::change_op::truncate: rows.clear(); return {};
    }
    return {};
  }

  static auto content_of(const replicant::logical_message& m) -> std::string {
    return {reinterpret_cast<const char*>(m.content.data()), m.content.size()};
  }

  static auto join(const std::vector<std::string>& names) -> std::string {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
    return out;
  }

  // What the sink receives, as it receives it. Positions, counts, operations and the tour's own
  // column names: never a row value.
  static auto watch(const std::string& line) -> void {
    std::printf("   sink <- %s\n", line.c_str());
    std::fflush(stdout);
  }

  std::string table_;
  std::mutex mutex_;
  std::condition_variable changed_;
  observations seen_;
};

using tour_pipeline = replicant::pgoutput_pipeline<mirror_sink>;

// ---------------------------------------------------------------------------------------------
// Part 2: the tour
// ---------------------------------------------------------------------------------------------

struct tour_options {
  std::string dsn = "fallback_application_name=replicant-getting-started";
  std::string prefix = "replicant_tour";
  std::chrono::seconds timeout{60};
  bool help = false;
};

// Why the tour stopped. The text is fixed, or made of step numbers, counts, LSNs, codes and
// SQLSTATEs: never a row value or a connection string.
struct tour_failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A refusal of the command line (exit status 2).
struct refusal : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The command line as text, before its values are checked: CLI11 reads into these.
struct tour_arguments {
  replicant::examples::command_line cli{
      "replicant-getting-started",
      "A guided tour of replicant that checks itself: it creates a table, a publication and a\n"
      "replication slot named after --prefix, streams changes into an in-memory mirror, checks every\n"
      "step's result, prints \"ok: ...\" per step, and drops what it created.",
      "The server needs wal_level = logical. Exit status: 0 when every step passed, 1 when a step's\n"
      "result was wrong or something failed, 2 when refused to start. See docs/getting_started.md."};
  std::string dsn;
  std::string prefix = "replicant_tour";
  std::string timeout = "60";

  tour_arguments() {
    cli.text("--dsn", dsn, "CONNINFO", "the PG* environment variables",
             "libpq connection string of a database the tour may create a table\nin, as a role that may replicate");
    cli.text("--prefix", prefix, "NAME", "replicant_tour",
             "names the table (NAME_items), publication (NAME_pub) and slot\n(NAME_slot); a-z, 0-9 and _, starting "
             "with a letter or _, at most 40");
    cli.text("--timeout", timeout, "SECS", "60", "how long each step may wait for the sink, 1 to 600");
  }
  tour_arguments(const tour_arguments&) = delete;
  auto operator=(const tour_arguments&) -> tour_arguments& = delete;
};

auto usage() -> std::string {
  const tour_arguments a;
  return a.cli.help();
}

auto parse_options(std::span<const char* const> args) -> tour_options {
  tour_arguments a;
  if (auto bad = a.cli.parse(args)) throw refusal{bad->to_refusal().reason};
  tour_options o;
  if (a.cli.help_requested()) {
    o.help = true;
    return o;
  }
  if (a.cli.given("--dsn")) o.dsn = a.dsn;
  // The names derived from the prefix must be valid slot and table names without quoting.
  const auto& v = a.prefix;
  const bool plain = !v.empty() && v.size() <= 40 && (v[0] < '0' || v[0] > '9') &&
                     std::all_of(v.begin(), v.end(),
                                 [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
  if (!plain) throw refusal{"--prefix is 1 to 40 characters of a-z, 0-9 and _, not starting with a digit"};
  o.prefix = v;
  const auto n = replicant::examples::parse_unsigned(a.timeout, 1, 600);
  if (!n) throw refusal{"--timeout is 1 to 600 seconds"};
  o.timeout = std::chrono::seconds{*n};
  return o;
}

auto say(const std::string& line) -> void {
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

// A replication pipeline running on a thread of its own, so the tour can write SQL meanwhile.
class running_pipeline {
 public:
  running_pipeline(mirror_sink& sink, const replicant::pgoutput_options& pgoutput,
                   const replicant::pipeline_options& options)
      : pipeline_(sink, pgoutput, options), thread_([this] {
          pipeline_.run(ec_);
          finished_.store(true);
        }) {}
  running_pipeline(const running_pipeline&) = delete;
  auto operator=(const running_pipeline&) -> running_pipeline& = delete;
  ~running_pipeline() { stop(); }

  // Stops it cleanly: what the sink stored is acknowledged, and run() returns.
  auto stop() -> void {
    pipeline_.stop();
    if (thread_.joinable()) thread_.join();
  }

  [[nodiscard]] auto finished() const -> bool { return finished_.load(); }

  // Why run() returned: the halt, value-free. The table name a halt may carry is left out.
  [[nodiscard]] auto why() const -> std::string {
    auto h = pipeline_.last_halt();
    if (!h) return "the pipeline stopped (" + ec_.message() + ")";
    h->table.reset();
    return replicant::describe(*h);
  }

 private:
  tour_pipeline pipeline_;
  std::error_code ec_;
  std::atomic<bool> finished_{false};
  std::thread thread_;  // last: it starts once everything it uses exists
};

class tour {
 public:
  explicit tour(const tour_options& o)
      : options_(o),
        table_(o.prefix + "_items"),
        publication_(o.prefix + "_pub"),
        slot_(o.prefix + "_slot"),
        sql_(connect(o.dsn)),
        sink_(table_) {}

  auto run() -> void {
    step_1_create_table_and_rows();
    auto pipeline = std::make_unique<running_pipeline>(sink_, pgoutput_options(), pipeline_options());
    step_2_snapshot(*pipeline);
    step_3_insert_update_delete(*pipeline);
    step_4_unchanged_toast(*pipeline);
    step_5_logical_messages(*pipeline);
    pipeline->stop();
    step_6_restart();
    clean_up();
    say("done: every step passed; the slot, the publication and the table were dropped");
  }

  // Drops what the tour created; also after a failure, so that a rerun starts clean.
  auto clean_up() noexcept -> void {
    try {
      drop_slot();
      exec("DROP PUBLICATION IF EXISTS " + publication_ + "; DROP TABLE IF EXISTS " + table_);
    } catch (...) {  // NOLINT(bugprone-empty-catch): best effort; the next run drops them first
    }
  }

 private:
  // What pgoutput is asked for: the tour's publication, and logical messages
  // (pg_logical_emit_message: transactional ones ride txn.messages()).
  [[nodiscard]] auto pgoutput_options() const -> replicant::pgoutput_options {
    return {.publications = {publication_}, .messages = true};
  }

  // The pipeline's options. The point-in-time snapshot start: with no checkpoint yet, the existing
  // rows come first (handle_snapshot), then streaming continues from the very point they were read
  // at. Once the sink has a checkpoint, the same options resume after it instead (step 6).
  [[nodiscard]] auto pipeline_options() const -> replicant::pipeline_options {
    return {.conninfo = options_.dsn,
            .slot = slot_,
            .start = replicant::start::point_in_time_snapshot{},
            .status_interval = 1s};
  }

  auto step_1_create_table_and_rows() -> void {
    if (scalar("SHOW wal_level") != "logical") {
      throw tour_failure{"step 1: the server needs wal_level = logical (set it in postgresql.conf and restart)"};
    }
    drop_slot();  // left over from an interrupted run, if any
    exec("DROP PUBLICATION IF EXISTS " + publication_ + "; DROP TABLE IF EXISTS " + table_);
    exec("CREATE TABLE " + table_ + " (id int PRIMARY KEY, name text NOT NULL, qty int NOT NULL, notes text)");
    // EXTERNAL: a large value is moved out of line uncompressed, so 5,000 bytes are surely TOASTed.
    exec("ALTER TABLE " + table_ + " ALTER COLUMN notes SET STORAGE EXTERNAL");
    exec("CREATE PUBLICATION " + publication_ + " FOR TABLE " + table_);
    exec("INSERT INTO " + table_ + " VALUES (1, 'apple', 10, repeat('a', 5000)), (2, 'pear', 20, 'ripe'), " +
         "(3, 'plum', 30, NULL)");
    say("ok: 1. created a table with a TOASTable column, a publication and 3 rows");
  }

  auto step_2_snapshot(running_pipeline& p) -> void {
    const auto seen = wait(p, "step 2", [](const observations& o) { return o.snapshot_complete; });
    expect(seen.snapshot_rows == 3, "step 2: the snapshot did not hand over exactly the 3 existing rows");
    expect(seen.applied.empty(), "step 2: a transaction arrived although nothing was written since the snapshot");
    expect(seen.rows == table_rows(), "step 2: after the snapshot the mirror differs from the table");
    say("ok: 2. snapshot: the 3 existing rows arrived through handle_snapshot(); streaming takes over at " +
        replicant::to_string(*seen.checkpoint));
  }

  auto step_3_insert_update_delete(running_pipeline& p) -> void {
    const auto before = sink_.look();
    exec("INSERT INTO " + table_ + " VALUES (4, 'fig', 40, NULL)");
    exec("BEGIN; UPDATE " + table_ + " SET name = 'green pear', notes = 'crisp' WHERE id = 2; DELETE FROM " + table_ +
         " WHERE id = 3; COMMIT");
    const auto seen = wait_for_transactions(p, "step 3", before, 2);
    expect(new_changes(before, seen) ==
               std::vector<std::pair<replicant::change_op, std::int32_t>>{{replicant::change_op::insert, 4},
                                                                          {replicant::change_op::update, 2},
                                                                          {replicant::change_op::delete_, 3}},
           "step 3: the changes did not arrive as written (insert 4; update 2, delete 3)");
    expect(seen.rows == table_rows(), "step 3: the mirror differs from the table");
    expect(
        std::vector<std::string>(seen.names_written.begin() + static_cast<std::ptrdiff_t>(before.names_written.size()),
                                 seen.names_written.end()) == std::vector<std::string>{"fig", "green pear"},
        "step 3: the typed view did not give the names written (fig, green pear)");
    say("ok: 3. insert, update and delete: 2 transactions with 3 changes arrived in commit order; the mirror "
        "equals the table");
  }

  auto step_4_unchanged_toast(running_pipeline& p) -> void {
    const auto before = sink_.look();
    // Row 1's notes are TOASTed; this UPDATE does not touch them, so the server does not send them.
    exec("UPDATE " + table_ + " SET qty = 11 WHERE id = 1");
    const auto seen = wait_for_transactions(p, "step 4", before, 1);
    expect(seen.changes.size() == before.changes.size() + 1, "step 4: not exactly one change arrived");
    const auto& update = seen.changes.back();
    expect(update.op == replicant::change_op::update && update.id == 1, "step 4: the update of row 1 did not arrive");
    expect(update.unchanged == std::vector<std::string>{"notes"},
           "step 4: change.unchanged() does not list exactly the TOASTed column");
    expect(seen.rows.at(1).notes_length == std::optional<std::size_t>{5000},
           "step 4: the mirror lost the unchanged TOASTed value");
    expect(seen.rows == table_rows(), "step 4: the mirror differs from the table");
    say("ok: 4. unchanged TOAST: the update left out `notes` (change.unchanged()), and the mirror kept the stored "
        "value");
  }

  auto step_5_logical_messages(running_pipeline& p) -> void {
    const auto before = sink_.look();
    exec("BEGIN; INSERT INTO " + table_ + " VALUES (5, 'kiwi', 50, NULL); SELECT pg_logical_emit_message(true, '" +
         std::string{message_prefix} + "', 'hello from inside'); COMMIT");
    exec("SELECT pg_logical_emit_message(false, '" + std::string{message_prefix} + "', 'hello on its own')");
    const auto seen = wait(p, "step 5", [&](const observations& o) {
      return o.applied.size() >= before.applied.size() + 1 &&
             o.standalone_messages.size() >= before.standalone_messages.size() + 1;
    });
    expect(seen.applied.size() == before.applied.size() + 1, "step 5: not exactly one transaction arrived");
    expect(seen.transactional_messages == std::vector<std::string>{"hello from inside"},
           "step 5: the transactional message did not ride its transaction (txn.messages())");
    expect(seen.standalone_messages == std::vector<std::string>{"hello on its own"},
           "step 5: the non-transactional message did not arrive through handle_message()");
    expect(seen.rows == table_rows(), "step 5: the mirror differs from the table");
    say("ok: 5. logical messages: one rode its transaction (txn.messages()), one came on its own "
        "(handle_message())");
  }

  auto step_6_restart() -> void {
    // The pipeline is stopped; the sink, and with it the checkpoint, lives on, as a database would.
    const auto before = sink_.look();
    exec("INSERT INTO " + table_ + " VALUES (6, 'lime', 60, NULL)");
    exec("UPDATE " + table_ + " SET qty = 41 WHERE id = 4");
    running_pipeline p{sink_, pgoutput_options(), pipeline_options()};
    const auto seen = wait_for_transactions(p, "step 6", before, 2);
    // Give anything that should not come (a transaction again, a second snapshot) time to show up.
    std::this_thread::sleep_for(1500ms);
    const auto later = sink_.look();
    expect(later.applied.size() == before.applied.size() + 2 && later.replays == 0,
           "step 6: not exactly the 2 new transactions arrived");
    expect(
        std::adjacent_find(later.applied.begin(), later.applied.end(), std::greater_equal<>{}) == later.applied.end(),
        "step 6: a transaction was applied twice, or out of commit order");
    expect(later.applied[before.applied.size()] > *before.checkpoint,
           "step 6: streaming did not resume after the checkpoint");
    expect(later.snapshot_rows == before.snapshot_rows, "step 6: a second snapshot was taken");
    expect(new_changes(before, seen) ==
               std::vector<std::pair<replicant::change_op, std::int32_t>>{{replicant::change_op::insert, 6},
                                                                          {replicant::change_op::update, 4}},
           "step 6: the changes written meanwhile did not arrive as written (insert 6; update 4)");
    expect(later.rows == table_rows(), "step 6: the mirror differs from the table");
    p.stop();
    say("ok: 6. restart: resumed after checkpoint " + replicant::to_string(*before.checkpoint) +
        "; exactly the 2 transactions written meanwhile arrived, none twice, no second snapshot");
  }

  // --- helpers ---

  template <class Ready>
  auto wait(const running_pipeline& p, std::string_view step, Ready ready) -> observations {
    const auto deadline = std::chrono::steady_clock::now() + options_.timeout;
    for (;;) {
      // Short slices, so that a pipeline that halted is reported at once rather than at the timeout.
      auto seen = sink_.wait_until(ready, 100ms);
      if (ready(seen)) return seen;
      if (p.finished()) throw tour_failure{std::string{step} + ": " + p.why()};
      if (std::chrono::steady_clock::now() >= deadline) {
        throw tour_failure{std::string{step} + ": the sink did not receive what was written within " +
                           std::to_string(options_.timeout.count()) + " s"};
      }
    }
  }

  auto wait_for_transactions(const running_pipeline& p, std::string_view step, const observations& before,
                             std::size_t n) -> observations {
    return wait(p, step, [&](const observations& o) { return o.applied.size() >= before.applied.size() + n; });
  }

  // The (operation, id) of each change that arrived after @p before.
  static auto new_changes(const observations& before, const observations& after)
      -> std::vector<std::pair<replicant::change_op, std::int32_t>> {
    std::vector<std::pair<replicant::change_op, std::int32_t>> out;
    for (std::size_t i = before.changes.size(); i < after.changes.size(); ++i) {
      out.emplace_back(after.changes[i].op, after.changes[i].id);
    }
    return out;
  }

  static auto expect(bool holds, std::string_view what) -> void {
    if (!holds) throw tour_failure{std::string{what}};
  }

  static auto connect(const std::string& dsn) -> replicant::pq::connection {
    auto c = replicant::pq::connection::open(dsn, replicant::pq::session_kind::normal);
    if (!c) throw tour_failure{"connecting failed: " + c.error().message() + " (check --dsn)"};
    return std::move(*c);
  }

  auto exec(const std::string& statement) -> replicant::pq::query_result {
    auto r = sql_.exec(statement);
    if (!r) {
      const auto& state = sql_.last_error().sqlstate;
      throw tour_failure{"a statement failed: " + r.error().message() +
                         (replicant::is_sqlstate(state) ? " [sqlstate " + state + "]" : std::string{})};
    }
    return std::move(*r);
  }

  auto scalar(const std::string& statement) -> std::string {
    const auto r = exec(statement);
    return r.rows() == 1 ? std::string{r.get(0, 0)} : std::string{};
  }

  // The table as the mirror should hold it.
  auto table_rows() -> table_state {
    const auto r = exec("SELECT id, name, qty, length(notes) FROM " + table_);
    table_state rows;
    for (int i = 0; i < r.rows(); ++i) {
      mirrored_row row{.name = std::string{r.get(i, 1)}, .qty = number<std::int32_t>(r.get(i, 2)), .notes_length = {}};
      if (!r.is_null(i, 3)) row.notes_length = number<std::size_t>(r.get(i, 3));
      rows[number<std::int32_t>(r.get(i, 0))] = std::move(row);
    }
    return rows;
  }

  template <class T>
  static auto number(std::string_view text) -> T {
    T v{};
    const auto parsed = std::from_chars(text.data(), text.data() + text.size(), v);
    if (parsed.ec != std::errc{}) throw tour_failure{"reading the table back failed: not a number"};
    return v;
  }

  // Drops the tour's slot. A slot still held by a walsender that has not yet noticed its client
  // went away (an interrupted run) is waited for, up to 10 seconds.
  auto drop_slot() -> void {
    const std::string in_use = "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot_ + "' AND active";
    for (int i = 0; i < 100 && scalar(in_use) != "0"; ++i) std::this_thread::sleep_for(100ms);
    exec("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '" + slot_ + "'");
  }

  tour_options options_;
  std::string table_;
  std::string publication_;
  std::string slot_;
  replicant::pq::connection sql_;
  mirror_sink sink_;
};

}  // namespace

auto main(int argc, char** argv) -> int {
  const std::span<const char* const> args{argv + 1, static_cast<std::size_t>(argc > 0 ? argc - 1 : 0)};
  try {
    const auto options = parse_options(args);
    if (options.help) {
      std::fputs(usage().c_str(), stdout);
      return replicant::examples::exit_ok;
    }
    tour t{options};
    try {
      t.run();
    } catch (...) {
      t.clean_up();
      throw;
    }
    return replicant::examples::exit_ok;
  } catch (const refusal& r) {
    std::fprintf(stderr, "replicant-getting-started: refused to start: %s\n", r.what());
    return replicant::examples::exit_refused;
  } catch (const tour_failure& f) {
    std::fprintf(stderr, "replicant-getting-started: FAILED: %s\n", f.what());
    return replicant::examples::exit_failure;
  } catch (const std::bad_alloc&) {
    std::fputs("replicant-getting-started: out of memory\n", stderr);
    return replicant::examples::exit_failure;
  }
}
