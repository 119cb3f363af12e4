// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTING_WORLD_HPP
#define REPLICANT_TESTING_WORLD_HPP

/// @file
/// The simulator's world: what a source database commits (transactions, empty ones, logical
/// messages and heartbeats, streamed transactions that commit or abort, schema changes between
/// transactions), laid out as WAL, and a simulated walsender that sends it as pgoutput by the
/// server's own rules for a slot.

#include <replicant/core/lsn.hpp>
#include <replicant/testing/pgoutput_writer.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace replicant::testing {

/// What one entry of a world is.
enum class event_kind : std::uint8_t {
  transaction,        ///< a committed transaction of some rows
  empty_transaction,  ///< a commit with nothing published in it
  message,            ///< a non-transactional logical message
  heartbeat,          ///< a non-transactional message, as `pipeline_options::heartbeat_interval` emits
  streamed,           ///< a transaction streamed in two blocks around the next entry, then committed
  streamed_abort,     ///< the same, aborted: nothing of it is delivered
  streamed_subabort,  ///< streamed and committed, with one subtransaction's rows aborted
  pause,              ///< time passes with nothing sent (`pause_length`): a batch's deadline, a status update
  prepared,           ///< prepared for two-phase commit, then COMMIT PREPARED after the next entry
  prepared_rollback,  ///< the same, then ROLLBACK PREPARED: nothing of it is delivered
};

/// The number of event kinds (for enumerating them).
inline constexpr std::size_t event_kinds = 10;

/// Whether the session must stream in-progress transactions to be sent an entry of kind @p k.
[[nodiscard]] constexpr auto needs_streaming(event_kind k) noexcept -> bool {
  return k == event_kind::streamed || k == event_kind::streamed_abort || k == event_kind::streamed_subabort;
}
/// Whether the session must decode two-phase transactions to be sent an entry of kind @p k.
[[nodiscard]] constexpr auto needs_two_phase(event_kind k) noexcept -> bool {
  return k == event_kind::prepared || k == event_kind::prepared_rollback;
}

/// How long a @ref event_kind::pause lasts, in the simulated time: past a one-second batch deadline.
inline constexpr std::chrono::milliseconds pause_length{2000};

/// The name of an event kind, for a schedule's printout.
[[nodiscard]] constexpr auto to_string(event_kind k) noexcept -> const char* {
  constexpr const char* names[] = {"transaction",    "empty_transaction", "message", "heartbeat", "streamed",
                                   "streamed_abort", "streamed_subabort", "pause",   "prepared",  "prepared_rollback"};
  return names[static_cast<std::size_t>(k)];
}

/// One entry of a world, in the order the source commits it.
struct world_event {
  event_kind kind = event_kind::transaction;  ///< what it is
  std::uint32_t rows = 1;                     ///< rows published (transaction kinds)
  bool with_message = false;                  ///< a transactional message rides the transaction
  bool widens_table = false;                  ///< the table gains a column before this entry (an additive change)
  /// A transaction on a table no publication names comes first: WAL the walsender reads and sends
  /// nothing of, but keepalives past it (where a state mirror's idle advance moves the slot).
  bool filtered_before = false;
};

/// A world: what the source commits, in order.
struct world {
  std::vector<world_event> events;  ///< the entries, in the order the source commits them
  /// The source's PostgreSQL major version. From 16 the engine streams with protocol 4
  /// (`streaming = parallel`), whose Stream Abort carries the abort's position and time.
  std::uint32_t server_major = 15;
};

/// One committed transaction the sink must end up with.
struct expected_transaction {
  lsn commit_lsn{};           ///< its commit LSN
  std::uint32_t changes = 0;  ///< the rows it publishes
};

/// The row value every simulated row carries: tests assert that none reaches an error, a log line
/// or a telemetry event.
inline constexpr const char* secret_value = "s3cr3t-simulated-row-value";

/**
 * The world laid out as WAL, and the walsender's view of it: which pgoutput messages a session
 * that starts decoding at a position receives.
 *
 * Positions follow the server: a transaction is skipped when its commit record begins before the
 * position decoding starts at, a non-transactional message when its record does (so acknowledging
 * a commit's end, or a message's end, skips it). A streamed transaction's blocks are sent again
 * whole when its commit or abort is. A prepared transaction (BEGIN PREPARE, its changes, PREPARE)
 * is sent when its PREPARE record begins at or after that position, and its COMMIT PREPARED or
 * ROLLBACK PREPARED when that record does: a session that starts past the PREPARE is sent the end
 * alone, which is why the engine never acknowledges past an outstanding PREPARE (the slot is
 * created with two-phase on, so no PREPARE lies before `two_phase_at`). Each session describes the
 * table (a Type message for its column of a user's type, then a Relation message) before its first
 * change, and again after the table changed. A pause is a message with no payload: no
 * WAL, only time passing where it stands.
 */
class wal {
 public:
  /// One pgoutput message and the entry it belongs to.
  struct message {
    std::size_t entry = 0;    ///< the index of its entry in the world
    pgoutput::bytes payload;  ///< the message as pgoutput sends it (empty: a pause)
    lsn at{};                 ///< the position of the frame it travels in (a commit's: its end)
    bool filtered = false;    ///< no message: WAL the walsender read up to `at` and sent nothing of
  };

  /// Lays @p w out, from an arbitrary starting position.
  explicit wal(const world& w) : world_(w) { lay_out(); }

  /// The messages a session receives when decoding starts at @p start, in order.
  [[nodiscard]] auto session_from(lsn start) const -> std::vector<message> {
    std::vector<message> out;
    // The table shape this session described last, outside streams (0) and in each stream: the
    // server tracks what a streamed transaction was told apart from the rest.
    std::map<std::uint32_t, std::uint32_t> described;
    for (const auto& u : units_) {
      const auto& e = entries_[u.entry];
      if (u.decision.value_or(e.decision) < start) continue;
      auto& told = described[u.stream_xid.value_or(0)];
      if (u.first_change && told != e.shape) {
        // pgoutput describes a column's type ahead of its table when the type is not built in.
        out.push_back({u.entry, pgoutput::type(u.stream_xid, user_type_oid, "public", "mood"), u.at});
        out.push_back({u.entry, relation(e.shape, u.stream_xid), u.at});
        told = e.shape;
      }
      out.push_back({u.entry, u.payload, u.at, u.filtered});
    }
    return out;
  }

  /// Every transaction a sink must end up with, in commit order.
  [[nodiscard]] auto expected() const -> std::vector<expected_transaction> {
    std::vector<expected_transaction> out;
    for (const auto& e : entries_) {
      if (e.delivered) out.push_back({e.commit, e.changes});
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.commit_lsn < b.commit_lsn; });
    return out;
  }

  /// The source's version, as `server_version_num` gives it.
  [[nodiscard]] auto server_version() const noexcept -> std::uint32_t { return world_.server_major * 10000; }

  /// Where the world's WAL begins: a slot created here is sent all of it.
  [[nodiscard]] static constexpr auto first() noexcept -> lsn { return lsn{wal_start}; }
  /// Where it ends: the server's flush position once the world has committed.
  [[nodiscard]] auto last() const noexcept -> lsn { return lsn{next_}; }

  /// The end of each delivered transaction's commit record, by commit LSN (what acknowledging it means).
  [[nodiscard]] auto end_of(lsn commit) const -> lsn {
    for (const auto& e : entries_) {
      if (e.delivered && e.commit == commit) return e.end;
    }
    return {};
  }

 private:
  static constexpr std::uint32_t table_oid = 16384;
  static constexpr std::uint32_t user_type_oid = 16390;  // column v's type, a user's (an enum)
  static constexpr std::uint64_t wal_start = 0x1000000;
  static constexpr std::uint64_t record = 0x40;  // every record's size: positions only need order

  struct entry {
    lsn decision{};  // where the server decides to send it or skip it
    lsn commit{};    // a transaction's commit LSN
    lsn end{};       // the end of its commit record
    std::uint32_t changes = 0;
    std::uint32_t shape = 1;  // the table's column count when it was written, less one
    bool delivered = false;
  };
  struct unit {
    std::size_t entry = 0;
    pgoutput::bytes payload;
    bool first_change = false;  // describe the table before this one, if the session has not
    std::optional<std::uint32_t> stream_xid{};
    lsn at{};                       // the frame's position: the WAL written so far, or a commit's end
    std::optional<lsn> decision{};  // where the server decides on this part, when not the entry's
    bool filtered = false;          // WAL of nothing published, read up to `at`
  };

  // Appends a unit at the position written so far.
  auto emit(unit u) -> void {
    u.at = lsn{next_};
    units_.push_back(std::move(u));
  }

  auto take() -> lsn {
    const lsn at{next_};
    next_ += record;
    return at;
  }

  auto lay_out() -> void {
    std::uint32_t shape = 1;
    entries_.resize(world_.events.size());
    std::size_t i = 0;
    while (i < world_.events.size()) {
      const auto& e = world_.events[i];
      if (e.widens_table) ++shape;
      entries_[i].shape = shape;
      if (is_streamed(e.kind)) {
        i = stream(i, shape);
      } else if (needs_two_phase(e.kind)) {
        i = prepare(i, shape);
      } else {
        whole(i);
        ++i;
      }
    }
  }

  // An entry laid out around the next one (which is then laid out whole inside it).
  [[nodiscard]] static auto is_streamed(event_kind k) noexcept -> bool { return needs_streaming(k); }
  [[nodiscard]] static auto encloses(event_kind k) noexcept -> bool { return needs_streaming(k) || needs_two_phase(k); }

  auto xid_of(std::size_t i) const noexcept -> std::uint32_t { return 1000 + static_cast<std::uint32_t>(i) * 2; }

  auto row(std::optional<std::uint32_t> xid, std::uint32_t shape, std::uint32_t n) const -> pgoutput::bytes {
    std::vector<pgoutput::col> cols{pgoutput::col::text(std::to_string(n)), pgoutput::col::text(secret_value)};
    for (std::uint32_t c = 1; c < shape; ++c) cols.push_back(pgoutput::col::text(secret_value));
    return pgoutput::insert(xid, table_oid, cols);
  }

  static auto relation(std::uint32_t shape, std::optional<std::uint32_t> xid) -> pgoutput::bytes {
    std::vector<pgoutput::attr> attrs{{.name = "id", .type_oid = 23, .key = true},
                                      {.name = "v", .type_oid = user_type_oid}};
    for (std::uint32_t c = 1; c < shape; ++c) attrs.push_back({.name = "added_" + std::to_string(c)});
    return pgoutput::relation(xid, table_oid, "public", "items", 'd', attrs);
  }

  // A transaction, an empty one or a message, sent whole at its commit; or a pause. A filtered
  // stretch first, when the entry has one: a transaction of two rows on a table no publication
  // names, which the server decides on (and sends nothing of) at its commit.
  auto whole(std::size_t i) -> void {
    const auto& e = world_.events[i];
    auto& en = entries_[i];
    if (e.filtered_before) {
      for (int r = 0; r < 4; ++r) static_cast<void>(take());
      unit u{i, {}};
      u.decision = lsn{next_ - record};
      u.filtered = true;
      emit(std::move(u));
    }
    if (e.kind == event_kind::pause) {
      en.decision = lsn{next_};
      emit({i, {}});
      return;
    }
    if (e.kind == event_kind::message || e.kind == event_kind::heartbeat) {
      en.decision = take();
      const std::string prefix = e.kind == event_kind::heartbeat ? "replicant.heartbeat" : "app";
      emit({i, pgoutput::message(std::nullopt, false, lsn{next_}, prefix, secret_value)});
      return;
    }
    const lsn begin_at = take();
    const std::uint32_t rows = e.kind == event_kind::empty_transaction ? 0 : e.rows;
    std::vector<unit> body;
    for (std::uint32_t r = 0; r < rows; ++r) {
      static_cast<void>(take());
      body.push_back({i, row(std::nullopt, en.shape, r), r == 0, std::nullopt, lsn{next_}});
    }
    if (e.with_message && rows > 0) {
      static_cast<void>(take());
      body.push_back(
          {i, pgoutput::message(std::nullopt, true, lsn{next_}, "app", secret_value), false, std::nullopt, lsn{next_}});
    }
    en.commit = take();
    en.end = lsn{en.commit.value() + record / 2};
    en.decision = en.commit;
    en.changes = rows;
    en.delivered = rows > 0;
    units_.push_back({i, pgoutput::begin(en.commit, 0, xid_of(i)), false, std::nullopt, begin_at});
    for (auto& u : body) units_.push_back(std::move(u));  // positions given as they were written
    units_.push_back({i, pgoutput::commit(en.commit, en.end, 0), false, std::nullopt, en.end});
  }

  // A streamed transaction: a block, the next entry whole, a second block, then its end. Returns
  // the index of the entry after those.
  auto stream(std::size_t i, std::uint32_t shape) -> std::size_t {
    const auto& e = world_.events[i];
    auto& en = entries_[i];
    const std::uint32_t xid = xid_of(i);
    const std::uint32_t subxid = xid + 1;
    const std::uint32_t rows = std::max<std::uint32_t>(e.rows, 2);
    const auto block = [&](bool first, std::uint32_t from, std::uint32_t to, std::uint32_t as) {
      emit({i, pgoutput::stream_start(xid, first)});
      for (std::uint32_t r = from; r < to; ++r) {
        static_cast<void>(take());
        emit({i, row(as, shape, r), r == from, as});
      }
      emit({i, pgoutput::stream_stop()});
    };
    block(true, 0, rows / 2, xid);
    const std::size_t next = enclose(i, shape);
    const bool sub = e.kind == event_kind::streamed_subabort;
    block(false, rows / 2, rows, sub ? subxid : xid);
    const lsn end_at = take();
    // Protocol 4 says where and when the abort happened (for a parallel apply worker).
    const auto abort_info = world_.server_major >= 16
                                ? std::optional<std::pair<lsn, std::int64_t>>{std::pair{end_at, std::int64_t{0}}}
                                : std::nullopt;
    if (e.kind == event_kind::streamed_abort) {
      en.decision = end_at;
      emit({i, pgoutput::stream_abort(xid, xid, abort_info)});
      return next;
    }
    if (sub) emit({i, pgoutput::stream_abort(xid, subxid, abort_info)});
    en.commit = take();
    en.end = lsn{en.commit.value() + record / 2};
    en.decision = en.commit;
    en.changes = sub ? rows / 2 : rows;
    en.delivered = true;
    units_.push_back({i, pgoutput::stream_commit(xid, en.commit, en.end, 0), false, std::nullopt, en.end});
    return next;
  }

  // The entry after @p i laid out whole inside it (unless it encloses others itself); the index of
  // the entry after those. The table keeps its shape meanwhile: a change of it waits for the end.
  auto enclose(std::size_t i, std::uint32_t shape) -> std::size_t {
    const std::size_t next = i + 1;
    if (next >= world_.events.size() || encloses(world_.events[next].kind)) return next;
    entries_[next].shape = shape;
    whole(next);
    return next + 1;
  }

  // A transaction prepared for two-phase commit: BEGIN PREPARE, its rows, PREPARE, the next entry
  // whole, then COMMIT PREPARED or ROLLBACK PREPARED. Returns the index of the entry after those.
  auto prepare(std::size_t i, std::uint32_t shape) -> std::size_t {
    const auto& e = world_.events[i];
    auto& en = entries_[i];
    const std::uint32_t xid = xid_of(i);
    const std::string gid = "gid" + std::to_string(i);
    const lsn begin_at = take();
    std::vector<unit> body;
    for (std::uint32_t r = 0; r < e.rows; ++r) {
      static_cast<void>(take());
      body.push_back({i, row(std::nullopt, shape, r), r == 0, std::nullopt, lsn{next_}});
    }
    const lsn prepared_at = take();
    const lsn prepare_end{prepared_at.value() + record / 2};
    units_.push_back(
        {i, pgoutput::begin_prepare(prepared_at, prepare_end, 0, xid, gid), false, std::nullopt, begin_at});
    for (auto& u : body) units_.push_back(std::move(u));
    units_.push_back(
        {i, pgoutput::prepare('P', prepared_at, prepare_end, 0, xid, gid), false, std::nullopt, prepare_end});
    for (auto it = units_.end() - static_cast<std::ptrdiff_t>(e.rows + 2); it != units_.end(); ++it)
      it->decision = prepared_at;
    const std::size_t next = enclose(i, shape);
    en.commit = take();
    en.end = lsn{en.commit.value() + record / 2};
    en.decision = en.commit;
    en.changes = e.rows;
    en.delivered = e.kind == event_kind::prepared;
    units_.push_back({i,
                      en.delivered ? pgoutput::commit_prepared(en.commit, en.end, 0, xid, gid)
                                   : pgoutput::rollback_prepared(prepare_end, en.end, 0, 0, xid, gid),
                      false, std::nullopt, en.end});
    return next;
  }

  world world_;
  std::vector<entry> entries_;
  std::vector<unit> units_;
  std::uint64_t next_ = wal_start;
};

/// The event kinds a session sends: every one, but for the streamed kinds without @p streaming
/// and the prepared kinds without @p two_phase.
[[nodiscard]] inline auto kinds_sent(bool streaming, bool two_phase) -> std::vector<event_kind> {
  std::vector<event_kind> out;
  for (std::size_t k = 0; k < event_kinds; ++k) {
    const auto kind = static_cast<event_kind>(k);
    if ((streaming || !needs_streaming(kind)) && (two_phase || !needs_two_phase(kind))) out.push_back(kind);
  }
  return out;
}

/// A random world of up to @p max_events entries of the kinds @p kinds, on a PostgreSQL major from 15
/// to 18, from @p rng.
template <class Rng>
[[nodiscard]] auto random_world(Rng& rng, std::size_t max_events, const std::vector<event_kind>& kinds,
                                std::uint32_t max_rows = 4) -> world {
  std::uniform_int_distribution<std::size_t> count{1, std::max<std::size_t>(1, max_events)};
  std::uniform_int_distribution<std::size_t> kind{0, kinds.size() - 1};
  std::uniform_int_distribution<std::uint32_t> rows{1, std::max<std::uint32_t>(1, max_rows)};
  std::bernoulli_distribution sometimes{0.2};
  world w;
  for (std::size_t n = count(rng); n > 0; --n) {
    w.events.push_back({.kind = kinds[kind(rng)],
                        .rows = rows(rng),
                        .with_message = sometimes(rng),
                        .widens_table = sometimes(rng),
                        .filtered_before = sometimes(rng)});
  }
  w.server_major = std::uniform_int_distribution<std::uint32_t>{15, 18}(rng);
  return w;
}

/// A world's entries, one line each, for a failure's printout.
[[nodiscard]] inline auto describe(const world& w) -> std::string {
  std::string out = "  on PostgreSQL " + std::to_string(w.server_major) + '\n';
  for (const auto& e : w.events) {
    out += "  ";
    out += to_string(e.kind);
    const bool has_rows = e.kind != event_kind::pause && e.kind != event_kind::message &&
                          e.kind != event_kind::heartbeat && e.kind != event_kind::empty_transaction;
    if (has_rows) out += " rows=" + std::to_string(e.rows);
    if (e.with_message) out += " +message";
    if (e.widens_table) out += " +widens_table";
    if (e.filtered_before) out += " +filtered_before";
    out += '\n';
  }
  return out;
}

}  // namespace replicant::testing

#endif  // REPLICANT_TESTING_WORLD_HPP
