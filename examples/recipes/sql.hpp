// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_RECIPES_SQL_HPP
#define REPLICANT_EXAMPLES_RECIPES_SQL_HPP

/// @file
/// What the SQL recipes share: a blocking libpq connection to the target database with statements
/// taking text parameters, a target transaction around a body, and the claim of the checkpoint row
/// that makes a sink-owned checkpoint in SQL exactly once. A failed statement is reduced to an
/// error code: the server's message can quote a row value, so it is never kept.

#include <replicant/core/error.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>

#include <libpq-fe.h>

#include <concepts>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace replicant::examples::recipes {

/// A statement's result, owned.
using pg_result = std::unique_ptr<PGresult, decltype(&PQclear)>;

/**
 * A blocking libpq connection to the database a sink writes into.
 *
 * @par Thread safety
 * One thread at a time.
 */
class sql_connection {
 public:
  /// Connects to @p conninfo; ok() says whether that worked. Never throws.
  explicit sql_connection(const std::string& conninfo) : conn_(PQconnectdb(conninfo.c_str()), &PQfinish) {
    // Notices ("relation ... already exists, skipping") are dropped: their text can quote values.
    if (conn_) PQsetNoticeProcessor(conn_.get(), &ignore_notice, nullptr);
  }

  /// Whether the connection stands. Never throws.
  [[nodiscard]] auto ok() const noexcept -> bool { return conn_ && PQstatus(conn_.get()) == CONNECTION_OK; }

  /**
   * Runs @p sql with @p params as text parameters `$1`, `$2`... (a null pointer is SQL NULL); each
   * takes its type from where it is used, so `'0/16B3748'` becomes a `pg_lsn` where one is expected.
   * @return the result, or `errc::server_error` (`errc::connection_failed` once the connection is
   *         gone). @throws std::bad_alloc only.
   */
  [[nodiscard]] auto exec(const char* sql, std::initializer_list<const char*> params = {}) -> result<pg_result> {
    const std::vector<const char*> values{params};
    pg_result r{
        PQexecParams(conn_.get(), sql, static_cast<int>(values.size()), nullptr, values.data(), nullptr, nullptr, 0),
        &PQclear};
    const auto status = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return result<pg_result>{std::move(r)};
    return fail(ok() ? errc::server_error : errc::connection_failed);
  }

 private:
  static auto ignore_notice(void* /*arg*/, const char* /*message*/) -> void {}

  std::unique_ptr<PGconn, decltype(&PQfinish)> conn_;
};

//[recipe_sql_transaction
/**
 * Runs @p body inside one target transaction: `BEGIN`, then @p body, then `COMMIT` when it returned
 * true, `ROLLBACK` when it returned false (nothing to change) or failed.
 * @return nothing, or the first error; a failed `COMMIT` is an error too, and leaves the outcome
 *         unknown, which the next claim settles.
 */
template <class Body>
  requires std::same_as<std::invoke_result_t<Body&>, result<bool>>
[[nodiscard]] auto in_transaction(sql_connection& target, Body&& body) -> result<void> {
  if (auto r = target.exec("BEGIN"); !r) return unexpected(r.error());
  auto keep = body();
  if (!keep || !*keep) {
    (void)target.exec("ROLLBACK");
    if (!keep) return unexpected(keep.error());
    return {};
  }
  if (auto r = target.exec("COMMIT"); !r) return unexpected(r.error());
  return {};
}
//]

//[recipe_sql_claim
/**
 * Inside a target transaction: moves @p slot's checkpoint row of `recipe_checkpoint` (slot text
 * PRIMARY KEY, commit_lsn pg_lsn) forwards to @p at, and only forwards. The upsert locks the row,
 * so when a killed predecessor's `COMMIT` is still in flight it waits for that transaction, then
 * sees its outcome: a plain `SELECT` would read the old checkpoint and apply the transaction again.
 * @return true when claimed (apply the transaction); false when @p at is not above the stored
 *         checkpoint (applied before: skip it), or the error.
 */
[[nodiscard]] inline auto claim(sql_connection& target, const std::string& slot, lsn at) -> result<bool> {
  const std::string text = to_string(at);
  auto r = target.exec(
      "INSERT INTO recipe_checkpoint AS c (slot, commit_lsn) VALUES ($1, $2) "
      "ON CONFLICT (slot) DO UPDATE SET commit_lsn = EXCLUDED.commit_lsn "
      "WHERE c.commit_lsn < EXCLUDED.commit_lsn RETURNING c.commit_lsn",
      {slot.c_str(), text.c_str()});
  if (!r) return unexpected(r.error());
  return PQntuples(r->get()) == 1;
}
//]

/**
 * Outside any transaction: @p slot's checkpoint as stored, or none. Only where a stream resumes: it
 * decides nothing about skipping (claim() does).
 * @return the LSN, none, or the error.
 */
[[nodiscard]] inline auto read_checkpoint(sql_connection& target, const std::string& slot)
    -> result<std::optional<lsn>> {
  auto r = target.exec("SELECT commit_lsn FROM recipe_checkpoint WHERE slot = $1", {slot.c_str()});
  if (!r) return unexpected(r.error());
  if (PQntuples(r->get()) == 0) return std::optional<lsn>{};
  auto at = parse_lsn(PQgetvalue(r->get(), 0, 0));
  if (!at) return unexpected(at.error());
  return std::optional{*at};
}

/// Creates `recipe_checkpoint` if it does not exist. @return nothing, or the error.
[[nodiscard]] inline auto create_checkpoint_table(sql_connection& target) -> result<void> {
  auto r =
      target.exec("CREATE TABLE IF NOT EXISTS recipe_checkpoint (slot text PRIMARY KEY, commit_lsn pg_lsn NOT NULL)");
  if (!r) return unexpected(r.error());
  return {};
}

}  // namespace replicant::examples::recipes

#endif  // REPLICANT_EXAMPLES_RECIPES_SQL_HPP
