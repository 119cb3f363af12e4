// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_WRITERS_SOURCE_WRITER_HPP
#define REPLICANT_TESTS_SUPPORT_WRITERS_SOURCE_WRITER_HPP

/// @file
/// The busy source of the kill-storm tests: txlog_writer, which commits numbered transactions and
/// knows exactly how many committed across crashes of the server (the exactly-once test's writer),
/// and, for the broker sinks' tests (tests/integration/examples/jetstream.cpp, kafka.cpp), the
/// tables (cdc_schema_ddl()) and the transactions source_writer commits into them. What a broker
/// test's independent reader then checks:
///
///   txlog     every writer transaction inserts its own id: the reader finds 1..N, each once, in order
///   counters  an update adds 1 to v: per key, the reader finds v = 1, 2, 3 ... up to the source's value
///   events    the inserts (txn, n): the reader finds the source's rows, each once, in (txn, n) order
///   scratch   a second connection's inserts and deletes (scratch_writer), some transactions of several
///             hundred rows, some rolled back: replayed in the reader's order, the rows are the source's

#include "support/server/pg_cluster.hpp"

#include <libpq-fe.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace replicant::test {

/// The tables of the writer, and publication @p publication over them. @throws std::bad_alloc only.
[[nodiscard]] inline auto cdc_schema_ddl(std::string_view publication) -> std::string {
  return R"sql(
CREATE TABLE txlog (id bigint PRIMARY KEY);
CREATE TABLE counters (k int PRIMARY KEY, v bigint NOT NULL, note text);
CREATE TABLE events (txn bigint NOT NULL, n int NOT NULL, body text, PRIMARY KEY (txn, n));
CREATE TABLE "Odd.Name v2" (id bigint PRIMARY KEY, note text);
CREATE TABLE scratch (id bigint PRIMARY KEY, note text);
INSERT INTO counters SELECT g, 0, NULL FROM generate_series(1, 16) g;
CREATE PUBLICATION )sql" +
         std::string{publication} + R"sql( FOR TABLE txlog, counters, events, "Odd.Name v2", scratch;
)sql";
}

/**
 * Commits transactions, each tagged with its id in table `txlog` (whose primary key is that id), and
 * knows exactly how many committed, across crashes of the server: when the connection breaks, it
 * reconnects, and a transaction whose COMMIT got no answer is looked up by its id: counted when it
 * committed, otherwise run again (the key refuses a second commit of one that did).
 */
class txlog_writer {
 public:
  /// A writer into database @p dsn, which holds table `txlog (id bigint PRIMARY KEY)`.
  explicit txlog_writer(std::string dsn) : dsn_(std::move(dsn)) {}

  /// Commits one transaction of @p statements (each ending in ';'; called once with the
  /// transaction's id) and the txlog insert. @return false if the server stayed away for a minute.
  template <class Statements>
  auto commit(Statements&& statements) -> bool {
    const std::uint64_t id = next_id_++;
    const std::string sql = "BEGIN;" + std::forward<Statements>(statements)(id) + "INSERT INTO txlog (id) VALUES (" +
                            std::to_string(id) + ");COMMIT";
    for (;;) {
      if (!connect()) return false;
      auto r = conn_->try_exec(sql);
      if (r.status() == PGRES_COMMAND_OK && std::string_view{PQcmdStatus(r.native())} == "COMMIT") {
        ++committed_;
        return true;
      }
      if (PQstatus(conn_->native()) == CONNECTION_OK) {
        static_cast<void>(conn_->try_exec("ROLLBACK"));
      } else {
        conn_.reset();
        if (!connect()) return false;
      }
      auto found = conn_->try_exec("SELECT count(*) FROM txlog WHERE id = " + std::to_string(id));
      if (!found.ok()) {  // lost again before it could tell: run it again, and look it up after that
        conn_.reset();
        ++retried_;
        continue;
      }
      ++in_doubt_;
      if (found.value(0, 0) == "1") {
        ++committed_;
        return true;
      }
      ++retried_;
    }
  }

  /// How many transactions committed.
  [[nodiscard]] auto committed() const -> std::uint64_t { return committed_.load(); }
  /// How many transactions' outcome had to be looked up.
  [[nodiscard]] auto in_doubt() const -> std::uint64_t { return in_doubt_; }
  /// How many times a transaction was run again.
  [[nodiscard]] auto retried() const -> std::uint64_t { return retried_; }

 private:
  auto connect() -> bool {
    if (conn_ && PQstatus(conn_->native()) == CONNECTION_OK) return true;
    conn_.reset();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{60};
    while (std::chrono::steady_clock::now() < deadline) {
      try {
        conn_.emplace(dsn_);
        // The server's notices ("terminating connection due to immediate shutdown") are noise here.
        PQsetNoticeProcessor(conn_->native(), [](void*, const char*) {}, nullptr);
        return true;
      } catch (const replicant::test::pg_error&) {
        std::this_thread::sleep_for(std::chrono::milliseconds{50});
      }
    }
    return false;
  }

  std::string dsn_;
  std::optional<pg_connection> conn_;
  std::uint64_t next_id_ = 1;
  std::atomic<std::uint64_t> committed_{0};
  std::uint64_t in_doubt_ = 0;
  std::uint64_t retried_ = 0;
};

/// The busy source's transactions into cdc_schema_ddl()'s tables, committed by a txlog_writer.
class source_writer {
 public:
  /// A writer into database @p dsn (holding cdc_schema_ddl()'s tables), its choices drawn from @p seed;
  /// some values it writes are @p secret, which the sink under test must never print.
  source_writer(std::string dsn, std::uint64_t seed, std::string secret)
      : writer_(std::move(dsn)), rng_(seed), secret_(std::move(secret)) {}

  /// Commits the next transaction. @return false if the server stayed away for a minute.
  auto commit_next() -> bool {
    return writer_.commit([this](std::uint64_t id) { return body(id); });
  }

  /// How many transactions committed.
  [[nodiscard]] auto committed() const -> std::uint64_t { return writer_.committed(); }

 private:
  // 1-3 events, an update of a counter in two of three transactions, now and then a row of the
  // table with an awkward name; some values carry the secret marker.
  auto body(std::uint64_t id) -> std::string {
    const auto pick = [&](int low, int high) { return std::uniform_int_distribution<int>{low, high}(rng_); };
    const std::string txn = std::to_string(id);
    const std::string text = pick(0, 7) == 0 ? "'" + secret_ + "'" : "md5(random()::text)";
    std::string sql = "INSERT INTO events SELECT " + txn + ", g, " + text + " FROM generate_series(1, " +
                      std::to_string(pick(1, 3)) + ") g;";
    if (pick(0, 2) != 0) {
      sql += "UPDATE counters SET v = v + 1, note = " + text + " WHERE k = " + std::to_string(pick(1, 16)) + ";";
    }
    if (pick(0, 9) == 0) sql += "INSERT INTO \"Odd.Name v2\" VALUES (" + txn + ", " + text + ");";
    return sql;
  }

  txlog_writer writer_;
  std::mt19937_64 rng_;
  std::string secret_;
};

/**
 * The second connection of a busy source: transactions on table `scratch` that interleave with
 * source_writer's, so that a reader meets deletes, transactions of several hundred rows, and none
 * of the rolled-back ones. Each step is one transaction: one in eight rolls back (its rows have
 * negative ids, which a reader must never see), one in forty inserts 300 rows and deletes up to 100,
 * the others insert 1 to 3 rows and delete up to 2. The source table is the truth a reader's replay
 * is held against (check_scratch() in support/checks/change_check.hpp), so a commit whose answer a
 * server crash lost needs no bookkeeping here.
 */
class scratch_writer {
 public:
  /// A writer into database @p dsn (holding cdc_schema_ddl()'s tables), its choices drawn from @p seed.
  scratch_writer(std::string dsn, std::uint64_t seed) : dsn_(std::move(dsn)), rng_(seed) {}

  /// Runs one transaction. @return false if the server stayed away for a minute.
  auto step() -> bool {
    const int kind = pick(0, 39);
    const std::size_t count = kind == 0 ? 300 : static_cast<std::size_t>(pick(1, 3));
    const bool rollback = kind >= 35;  // one in eight
    const std::int64_t first = rollback ? -next_id_ : next_id_;
    std::string sql = "BEGIN;INSERT INTO scratch SELECT g, md5(g::text) FROM generate_series(" + std::to_string(first) +
                      ", " + std::to_string(first + static_cast<std::int64_t>(count) - 1) + ") g;";
    std::vector<std::int64_t> gone;
    for (std::size_t n = kind == 0 ? 100 : static_cast<std::size_t>(pick(0, 2)); n > 0 && !live_.empty(); --n) {
      const auto at = static_cast<std::size_t>(pick(0, static_cast<int>(live_.size()) - 1));
      gone.push_back(live_[at]);
      live_[at] = live_.back();
      live_.pop_back();
    }
    for (const auto id : gone) sql += "DELETE FROM scratch WHERE id = " + std::to_string(id) + ";";
    sql += rollback ? "ROLLBACK" : "COMMIT";
    next_id_ += static_cast<std::int64_t>(count);
    if (!run(sql)) return false;
    if (rollback) {
      live_.insert(live_.end(), gone.begin(), gone.end());
      ++rolled_back_;
      return true;
    }
    for (std::size_t i = 0; i < count; ++i) live_.push_back(first + static_cast<std::int64_t>(i));
    ++committed_;
    if (count >= 300) ++large_;
    return true;
  }

  /// Transactions committed, of them with several hundred rows, and rolled back (for the log).
  [[nodiscard]] auto committed() const -> std::uint64_t { return committed_.load(); }
  [[nodiscard]] auto large() const -> std::uint64_t { return large_.load(); }
  [[nodiscard]] auto rolled_back() const -> std::uint64_t { return rolled_back_.load(); }

 private:
  auto pick(int low, int high) -> int { return std::uniform_int_distribution<int>{low, high}(rng_); }

  // Runs @p sql, reconnecting while the server is away; a transaction whose answer was lost is
  // not run again (the source table says whether it committed).
  auto run(const std::string& sql) -> bool {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{60};
    while (std::chrono::steady_clock::now() < deadline) {
      try {
        if (!conn_ || PQstatus(conn_->native()) != CONNECTION_OK) conn_.emplace(dsn_);
        auto r = conn_->try_exec(sql);
        if (PQstatus(conn_->native()) == CONNECTION_OK) {
          if (r.status() != PGRES_COMMAND_OK) static_cast<void>(conn_->try_exec("ROLLBACK"));
          return true;
        }
        conn_.reset();
        return true;
      } catch (const replicant::test::pg_error&) {
        conn_.reset();
        std::this_thread::sleep_for(std::chrono::milliseconds{50});
      }
    }
    return false;
  }

  std::string dsn_;
  std::mt19937_64 rng_;
  std::optional<pg_connection> conn_;
  std::int64_t next_id_ = 1;
  std::vector<std::int64_t> live_;
  std::atomic<std::uint64_t> committed_{0};
  std::atomic<std::uint64_t> large_{0};
  std::atomic<std::uint64_t> rolled_back_{0};
};

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_WRITERS_SOURCE_WRITER_HPP
