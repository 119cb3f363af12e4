// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-recipe-replica-identity-full: a sink for a table with REPLICA IDENTITY FULL, which
// sends the whole old row with every update and delete (docs/replica_identity_full.md quotes it):
//
//   replicant-recipe-replica-identity-full SOURCE_CONNINFO TARGET_CONNINFO
//
// Streams the publication `recipe_pub` (the table `accounts (id bigint PRIMARY KEY, owner text,
// balance bigint)`, REPLICA IDENTITY FULL) through the slot `recipe_full`, created if missing (from
// now on). In the target it keeps a copy of `accounts`, updated and deleted by the key read from
// the old row, and a history with each change's balance before and after, the before taken from
// the old row. Exactly once, by the claim of sql_sink.cpp. SIGINT or SIGTERM stops it cleanly.

#include "run.hpp"
#include "sql.hpp"

#include <replicant/replicant.hpp>

#include <boost/hana/define_struct.hpp>

#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace {

using replicant::examples::recipes::claim;
using replicant::examples::recipes::in_transaction;
using replicant::examples::recipes::read_checkpoint;
using replicant::examples::recipes::sql_connection;

//[recipe_full_rows
struct account {
  BOOST_HANA_DEFINE_STRUCT(account, (std::int64_t, id), (std::string, owner), (std::int64_t, balance));
};
// What an update sends when it left a TOASTed `owner` alone: every column but that one.
struct account_without_owner {
  BOOST_HANA_DEFINE_STRUCT(account_without_owner, (std::int64_t, id), (std::int64_t, balance));
};
//]

// The text of an integer, for a statement's parameter.
auto text(std::int64_t v) -> std::string { return std::to_string(v); }

//[recipe_full_sink
class full_identity_sink {
 public:
  full_identity_sink(sql_connection& target, std::string slot) : target_(target), slot_(std::move(slot)) {}

  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return read_checkpoint(target_, slot_); }

  auto handle_transaction(const replicant::transaction& txn) -> replicant::result<replicant::lsn> {
    auto done = in_transaction(target_, [&]() -> replicant::result<bool> {
      auto claimed = claim(target_, slot_, txn.commit_lsn());
      if (!claimed || !*claimed) return claimed;
      const std::string at = replicant::to_string(txn.commit_lsn());
      for (const replicant::change& c : txn.changes()) {
        if (auto r = apply(at, c); !r) return replicant::unexpected(r.error());
      }
      if (const auto ec = txn.read_error()) return replicant::unexpected(ec);
      return true;
    });
    if (!done) return replicant::unexpected(done.error());
    return txn.commit_lsn();
  }

 private:
  auto apply(const std::string& at, const replicant::change& c) -> replicant::result<void> {
    if (c.op() == replicant::change_op::truncate) return {};  // a real sink would empty its copy
    if (c.op() == replicant::change_op::insert) {
      auto row = c.as<account>();
      if (!row) return replicant::unexpected(std::error_code{row.error()});
      const std::string id = text(row->id);
      const std::string balance = text(row->balance);
      auto r = target_.exec("INSERT INTO accounts (id, owner, balance) VALUES ($1, $2, $3)",
                            {id.c_str(), row->owner.c_str(), balance.c_str()});
      if (!r) return replicant::unexpected(r.error());
      return record(at, c, row->id, std::nullopt, row->balance);
    }
    // An update or a delete. Under FULL the old row is whole: every column, TOASTed values included.
    // (Under DEFAULT it holds the key only, the other columns as NULL, and old_as<account>() fails.)
    if (c.old_kind() != replicant::old_tuple_kind::full) {
      return replicant::unexpected(std::make_error_code(std::errc::not_supported));  // FULL tables only
    }
    auto before = c.old_as<account>();
    if (!before) return replicant::unexpected(std::error_code{before.error()});
    // Found by the key as it was: the old row's `id`, whatever the update did to it.
    const std::string old_id = text(before->id);
    if (c.op() == replicant::change_op::delete_) {
      if (auto r = target_.exec("DELETE FROM accounts WHERE id = $1", {old_id.c_str()}); !r) {
        return replicant::unexpected(r.error());
      }
      return record(at, c, before->id, before->balance, std::nullopt);
    }
    auto after = new_row(c, *before);
    if (!after) return replicant::unexpected(after.error());
    const std::string id = text(after->id);
    const std::string balance = text(after->balance);
    auto r = target_.exec("UPDATE accounts SET id = $2, owner = $3, balance = $4 WHERE id = $1",
                          {old_id.c_str(), id.c_str(), after->owner.c_str(), balance.c_str()});
    if (!r) return replicant::unexpected(r.error());
    return record(at, c, after->id, before->balance, after->balance);
  }

  // The new row of an update, whole. A TOASTed value the update left alone is not sent
  // (c.unchanged() names its column); the FULL old row holds it, so it is taken from there.
  static auto new_row(const replicant::change& c, const account& before) -> replicant::result<account> {
    if (c.unchanged().empty()) {
      auto row = c.as<account>();
      if (!row) return replicant::unexpected(std::error_code{row.error()});
      return std::move(*row);
    }
    auto sent = c.as<account_without_owner>();
    if (!sent) return replicant::unexpected(std::error_code{sent.error()});
    account row;
    row.id = sent->id;
    row.owner = before.owner;
    row.balance = sent->balance;
    return row;
  }
  // clang-format off
//]
  // clang-format on

  // A row of the history: the account, and its balance before (from the old row) and after.
  auto record(const std::string& at, const replicant::change& c, std::int64_t id, std::optional<std::int64_t> before,
              std::optional<std::int64_t> after) -> replicant::result<void> {
    const std::string op{replicant::to_string(c.op())};
    const std::string key = text(id);
    const std::string b = before ? text(*before) : std::string{};
    const std::string a = after ? text(*after) : std::string{};
    auto r = target_.exec(
        "INSERT INTO account_history (commit_lsn, op, id, balance_before, balance_after) VALUES ($1, $2, $3, $4, $5)",
        {at.c_str(), op.c_str(), key.c_str(), before ? b.c_str() : nullptr, after ? a.c_str() : nullptr});
    if (!r) return replicant::unexpected(r.error());
    return {};
  }

  sql_connection& target_;
  std::string slot_;
};

static_assert(replicant::sink<full_identity_sink>);

// The type main() builds, for the stop signal.
using full_pipeline = replicant::pgoutput_pipeline<full_identity_sink>;

}  // namespace

auto main(int argc, char** argv) -> int {
  constexpr std::string_view program = "replicant-recipe-replica-identity-full";
  if (argc != 3) {
    std::cerr << "usage: " << program << " SOURCE_CONNINFO TARGET_CONNINFO\n";
    return 2;
  }
  if (!replicant::examples::stop_signal::install(&replicant::examples::stop_running_pipelines<full_pipeline>)) {
    return 1;
  }
  sql_connection target{argv[2]};
  if (!target.ok() || !replicant::examples::recipes::create_checkpoint_table(target) ||
      !target.exec("CREATE TABLE IF NOT EXISTS accounts (id bigint PRIMARY KEY, owner text NOT NULL, balance bigint "
                   "NOT NULL)") ||
      !target.exec("CREATE TABLE IF NOT EXISTS account_history (commit_lsn pg_lsn NOT NULL, op text NOT NULL, id "
                   "bigint NOT NULL, balance_before bigint, balance_after bigint)")) {
    std::cerr << program << ": cannot prepare the target database\n";
    return 1;
  }
  full_identity_sink sink{target, "recipe_full"};
  full_pipeline p{
      sink, replicant::pgoutput_options{.publications = {"recipe_pub"}},
      replicant::pipeline_options{.conninfo = argv[1], .slot = "recipe_full", .start = replicant::start::go_forward{}}};
  return replicant::examples::recipes::run_until_stopped(p, program);
}
