// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-recipe-sql-sink: a sink under sink_owned_checkpoint that writes into a PostgreSQL
// database, exactly once in effect, because it claims its checkpoint row inside the target
// transaction before it decides whether to skip (docs/checkpoint/sink_owned.md quotes it).
//
//   replicant-recipe-sql-sink SOURCE_CONNINFO TARGET_CONNINFO
//
// Streams the publication `recipe_pub` (the table `orders (id bigint PRIMARY KEY, amount bigint)`)
// through the slot `recipe_sql`, created if missing (from now on), and appends one row per change to
// the target's `order_events`. SIGINT or SIGTERM stops it cleanly.
// tests/integration/examples/recipes.cpp kills and restarts it, and counts.

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

struct order {
  BOOST_HANA_DEFINE_STRUCT(order, (std::int64_t, id), (std::int64_t, amount));
};
struct order_key {
  BOOST_HANA_DEFINE_STRUCT(order_key, (std::int64_t, id));
};

//[recipe_sql_sink
// Appends each change of `orders` to the target's `order_events`, and keeps this slot's checkpoint
// in the target's `recipe_checkpoint`, written by the same target transaction as the rows.
class sql_sink {
 public:
  sql_sink(sql_connection& target, std::string slot) : target_(target), slot_(std::move(slot)) {}

  // Where the stream resumes: a plain read, which only picks the starting point.
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return read_checkpoint(target_, slot_); }

  auto handle_transaction(const replicant::transaction& txn) -> replicant::result<replicant::lsn> {
    auto done = in_transaction(target_, [&]() -> replicant::result<bool> {
      // Claim first, and skip only on the claim's word: it waits for a predecessor's COMMIT that
      // may still be in flight, which the checkpoint read at connect cannot see.
      auto claimed = claim(target_, slot_, txn.commit_lsn());
      if (!claimed || !*claimed) return claimed;  // an error, or applied before: roll back
      for (const replicant::change& c : txn.changes()) {
        if (auto r = append(txn.commit_lsn(), c); !r) return replicant::unexpected(r.error());
      }
      if (const auto ec = txn.read_error()) return replicant::unexpected(ec);  // a spilled transaction not read back
      return true;  // commit: the rows and the checkpoint together
    });
    if (!done) return replicant::unexpected(done.error());
    return txn.commit_lsn();  // after COMMIT (or a skip): only now may the slot move past it
  }

 private:
  // One row of order_events: what happened to which order, at which commit.
  auto append(replicant::lsn commit, const replicant::change& c) -> replicant::result<void> {
    if (c.op() == replicant::change_op::truncate) return {};  // a real sink would record it too
    const std::string at = replicant::to_string(commit);
    const std::string op{replicant::to_string(c.op())};
    std::string id;
    std::optional<std::string> amount;  // none for a delete, which carries only the old key
    if (c.op() == replicant::change_op::delete_) {
      auto key = c.old_as<order_key>();
      if (!key) return replicant::unexpected(std::error_code{key.error()});
      id = std::to_string(key->id);
    } else {
      auto row = c.as<order>();
      if (!row) return replicant::unexpected(std::error_code{row.error()});
      id = std::to_string(row->id);
      amount = std::to_string(row->amount);
    }
    auto r = target_.exec("INSERT INTO order_events (commit_lsn, op, id, amount) VALUES ($1, $2, $3, $4)",
                          {at.c_str(), op.c_str(), id.c_str(), amount ? amount->c_str() : nullptr});
    if (!r) return replicant::unexpected(r.error());
    return {};
  }

  sql_connection& target_;
  std::string slot_;
};
//]

static_assert(replicant::sink<sql_sink>);

// The type main() builds, for the stop signal.
using sql_pipeline = replicant::pgoutput_pipeline<sql_sink>;

constexpr std::string_view program = "replicant-recipe-sql-sink";

//[recipe_sql_pipeline
// Streams the publication recipe_pub into @p sink until SIGINT or SIGTERM (examples/recipes/run.hpp).
auto stream(sql_sink& sink, const std::string& source) -> int {
  replicant::pgoutput_options pg{.publications = {"recipe_pub"}};
  replicant::pipeline_options o{.conninfo = source, .slot = "recipe_sql", .start = replicant::start::go_forward{}};
  replicant::pgoutput_pipeline<sql_sink> p{sink, pg, o};
  return replicant::examples::recipes::run_until_stopped(p, program);
}
//]

}  // namespace

auto main(int argc, char** argv) -> int {
  if (argc != 3) {
    std::cerr << "usage: " << program << " SOURCE_CONNINFO TARGET_CONNINFO\n";
    return 2;
  }
  if (!replicant::examples::stop_signal::install(&replicant::examples::stop_running_pipelines<sql_pipeline>)) {
    return 1;
  }
  sql_connection target{argv[2]};
  if (!target.ok() || !replicant::examples::recipes::create_checkpoint_table(target) ||
      !target.exec("CREATE TABLE IF NOT EXISTS order_events "
                   "(commit_lsn pg_lsn NOT NULL, op text NOT NULL, id bigint NOT NULL, amount bigint)")) {
    std::cerr << program << ": cannot prepare the target database\n";
    return 1;
  }
  sql_sink sink{target, "recipe_sql"};
  return stream(sink, argv[1]);
}
