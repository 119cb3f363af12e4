// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Schema changes made while the pipeline streams, once per PostgreSQL major, classified as the
// reference does: a widened type (a larger integer, a longer or unbounded varchar, a larger numeric
// precision with the same scale) is additive and streams on, the sink's hook hearing of it with its
// context; a narrowing, a dropped or renamed column, a renamed table, a new replica identity and a
// column joining the key are destructive and halt before the first change that uses the new
// shape, acknowledging nothing from that transaction on. Every row carries a secret value that no
// event or halt may show.
#include <replicant/pipeline.hpp>

#include <boost/test/unit_test.hpp>

#include "support/common/unprintable.hpp"
#include "support/server/pg_cluster.hpp"
#include "support/sinks/dedup_checkpoint.hpp"
#include "support/sinks/live_pipeline.hpp"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(schema_changes_tests)

using namespace std::chrono_literals;
using replicant::column_change;
using replicant::column_change_kind;
using replicant::halt_reason;
using replicant::lsn;
using replicant::result;
using replicant::test::event_log;
using replicant::test::memory_sink;

namespace {

constexpr std::string_view secret = "s3cr3t";

// A published database whose publication also has `accounts`, a table with a column of each
// type a migration widens.
struct fixture : replicant::test::published_database {
  fixture() {
    sql("CREATE TABLE accounts (id int4 PRIMARY KEY, small int2 NOT NULL DEFAULT 0, big int8, code varchar(10), "
        "amount numeric(10,2), note text); "
        "ALTER PUBLICATION pub ADD TABLE accounts");
  }

  // Inserts row @p id into @p table with secret values in its text columns; @p small, @p code and
  // @p amount are SQL literals.
  auto insert(int id, const std::string& small = "1", const std::string& code = "'s3cr3t'",
              const std::string& amount = "1.50", const std::string& table = "accounts") -> void {
    const std::string n = std::to_string(id);
    sql("INSERT INTO " + table + " (id, small, big, code, amount, note) VALUES (" + n + ", " + small + ", " + n + ", " +
        code + ", " + amount + ", 's3cr3t-NOTE-" + n + "')");
  }

  // The server's current WAL position: every transaction that commits later has a greater commit LSN.
  auto wal_position() -> lsn { return replicant::parse_lsn(pg.scalar("SELECT pg_current_wal_lsn()")).value(); }
};

// A sink without the schema-change hook: widenings stream on, destructive changes halt.
struct hookless_sink : replicant::test::dedup_checkpoint {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<lsn> commits;

  auto checkpoint() -> result<std::optional<lsn>> {
    const std::lock_guard lock{mutex};
    return dedup_checkpoint::checkpoint();
  }
  auto handle_transaction(const replicant::transaction& t) -> result<lsn> {
    const std::lock_guard lock{mutex};
    if (already_applied(t)) return t.commit_lsn();
    commits.push_back(t.commit_lsn());
    store(t.commit_lsn());
    changed.notify_all();
    return t.commit_lsn();
  }
  auto wait_for_rows(std::size_t n) -> bool {
    std::unique_lock lock{mutex};
    return changed.wait_for(lock, replicant::test::scaled(30s), [&] { return commits.size() >= n; });
  }
  auto delivered() -> std::size_t {
    const std::lock_guard lock{mutex};
    return commits.size();
  }
};

// The hook in its older, one-argument form: still called, without the context.
struct one_argument_sink : hookless_sink {
  static constexpr replicant::hook hooks = replicant::hook::schema_change;
  std::vector<replicant::schema_change> seen;
  auto handle_schema_change(const replicant::schema_change& c) -> result<void> {
    const std::lock_guard lock{mutex};
    seen.push_back(c);
    return {};
  }
};

template <class Sink>
using pipeline_for = replicant::pgoutput_pipeline<Sink>;
template <class Sink>
using running = replicant::test::running<pipeline_for<Sink>>;

// Streams accounts' row 1 through @p sink, then runs @p ddl and inserts row 2 with @p insert_sql.
// @return the WAL position just before row 2's transaction.
template <class Sink>
auto change_after_first_row(fixture& f, Sink& sink, const std::string& ddl, const std::string& insert_sql) -> lsn {
  BOOST_TEST_REQUIRE(fixture::wait_until([&] { return f.slot_active(); }));
  f.insert(1);
  BOOST_TEST_REQUIRE(sink.wait_for_rows(1));
  f.sql(ddl);
  const lsn before = f.wal_position();
  f.sql(insert_sql);
  return before;
}

// One widening: the statement, the row that needs the wider type, and the column widened.
struct widening {
  std::string ddl;
  std::string small;
  std::string code;
  std::string amount;
  std::string column;
};

auto widenings() -> std::vector<widening> {
  return {
      {"ALTER TABLE accounts ALTER COLUMN small TYPE int4", "100000", "'s3cr3t'", "1.50", "small"},
      {"ALTER TABLE accounts ALTER COLUMN small TYPE int8", "10000000000", "'s3cr3t'", "1.50", "small"},
      {"ALTER TABLE accounts ALTER COLUMN code TYPE varchar(20)", "1", "'s3cr3t-FIFTEEN!'", "1.50", "code"},
      {"ALTER TABLE accounts ALTER COLUMN code TYPE varchar", "1", "'s3cr3t-longer-than-twenty-chars'", "1.50", "code"},
      {"ALTER TABLE accounts ALTER COLUMN code TYPE text", "1", "'s3cr3t-as-text'", "1.50", "code"},
      {"ALTER TABLE accounts ALTER COLUMN amount TYPE numeric(12,2)", "1", "'s3cr3t'", "1234567890.12", "amount"},
      {"ALTER TABLE accounts ALTER COLUMN amount TYPE numeric", "1", "'s3cr3t'", "1.123456789", "amount"},
  };
}

// One destructive change: the statement, the row after it, and the table the halt names.
struct destructive_case {
  std::string ddl;
  std::string insert_sql;
  std::string table = "accounts";
};

auto destructive_cases() -> std::vector<destructive_case> {
  const std::string row2 = "INSERT INTO accounts (id, small, code, note) VALUES (2, 1, 's3cr3t', 's3cr3t-NOTE-2')";
  return {
      {"ALTER TABLE accounts ALTER COLUMN big TYPE int4", row2},              // a narrower integer
      {"ALTER TABLE accounts ALTER COLUMN small TYPE numeric", row2},         // another type family
      {"ALTER TABLE accounts ALTER COLUMN code TYPE varchar(8)", row2},       // a shorter varchar
      {"ALTER TABLE accounts ALTER COLUMN amount TYPE numeric(8,2)", row2},   // a smaller precision
      {"ALTER TABLE accounts ALTER COLUMN amount TYPE numeric(12,3)", row2},  // another scale
      {"ALTER TABLE accounts DROP COLUMN big", row2},                         // a dropped column
      {"ALTER TABLE accounts RENAME COLUMN big TO huge", row2},               // a renamed column
      {"ALTER TABLE accounts REPLICA IDENTITY FULL", row2},                   // a new replica identity
      {"ALTER TABLE accounts DROP CONSTRAINT accounts_pkey, ADD PRIMARY KEY (id, small)", row2},  // the key
      {"ALTER TABLE accounts RENAME TO ledger",
       "INSERT INTO ledger (id, small, code, note) VALUES (2, 1, 's3cr3t', 's3cr3t-NOTE-2')", "ledger"},
  };
}

}  // namespace

BOOST_AUTO_TEST_SUITE(schema_changes)

// Each widening streams on: the row that needs the wider type is delivered, the hook hears of the
// widening with the slot and the commit LSN of that row's transaction, and telemetry names it.
BOOST_AUTO_TEST_CASE(widenings_stream_on_and_the_hook_hears_of_each_with_its_context) {
  fixture f;
  memory_sink sink;
  std::vector<replicant::schema_change> heard;
  sink.on_schema_change = [&](const replicant::schema_change& c) -> result<void> {
    heard.push_back(c);  // on the pipeline's thread, under no lock the test takes before it stops
    return {};
  };
  event_log events;
  running<memory_sink> r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(fixture::wait_until([&] { return f.slot_active(); }));
  f.insert(1);
  BOOST_TEST_REQUIRE(sink.wait_for_rows(1));
  const auto steps = widenings();
  for (std::size_t i = 0; i < steps.size(); ++i) {
    BOOST_TEST_CONTEXT(steps[i].ddl) {
      f.sql(steps[i].ddl);
      f.insert(static_cast<int>(i) + 2, steps[i].small, steps[i].code, steps[i].amount);
      BOOST_TEST_REQUIRE(sink.wait_for_rows(i + 2));
    }
  }
  BOOST_TEST_REQUIRE(f.wait_for_status_update());
  BOOST_TEST(!r.stop());

  BOOST_TEST_REQUIRE(heard.size() == steps.size());
  BOOST_TEST_REQUIRE(sink.schema_change_contexts.size() == steps.size());
  BOOST_TEST_REQUIRE(sink.commits.size() == steps.size() + 1);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    BOOST_TEST_CONTEXT(steps[i].ddl) {
      BOOST_TEST((heard[i].kind == replicant::schema_change_kind::additive));
      BOOST_TEST(heard[i].table == "accounts");
      BOOST_TEST((heard[i].changes == std::vector<column_change>{{column_change_kind::type_widened, steps[i].column}}),
                 boost::test_tools::per_element());
      BOOST_TEST(sink.schema_change_contexts[i].slot == f.slot);
      // The position is that of the transaction with the first row of the new shape.
      BOOST_TEST(sink.schema_change_contexts[i].at == std::optional<lsn>{sink.commits[i + 1]});
    }
  }
  BOOST_TEST(f.confirmed_flush() > sink.commits.back(), "everything delivered was acknowledged");
  BOOST_TEST(events.count("replicant.schema_change.additive table=public.accounts kind=widened") == steps.size());
  BOOST_TEST(!events.contains("replicant.schema_change.halted"));
  BOOST_TEST(!events.contains(secret));
}

// Without the hook a widening streams on by itself; the hook's older one-argument form is still
// called, and accepting a destructive change there lets streaming go on as well.
BOOST_AUTO_TEST_CASE(a_widening_needs_no_hook_and_the_one_argument_hook_still_works) {
  {
    fixture f;
    hookless_sink sink;
    event_log events;
    running<hookless_sink> r{sink, f.pgoutput, f.options, &events.dispatcher};
    change_after_first_row(f, sink, "ALTER TABLE accounts ALTER COLUMN small TYPE int8",
                           "INSERT INTO accounts (id, small) VALUES (2, 10000000000)");
    BOOST_TEST(sink.wait_for_rows(2));
    BOOST_TEST(!r.stop());
    BOOST_TEST(events.contains("replicant.schema_change.additive table=public.accounts kind=widened"));
    BOOST_TEST(!events.contains(secret));
  }
  fixture f;
  one_argument_sink sink;
  running<one_argument_sink> r{sink, f.pgoutput, f.options};
  change_after_first_row(f, sink, "ALTER TABLE accounts ALTER COLUMN code TYPE varchar(40), DROP COLUMN big",
                         "INSERT INTO accounts (id, code) VALUES (2, 's3cr3t-more-than-ten')");
  BOOST_TEST(sink.wait_for_rows(2));
  BOOST_TEST(!r.stop());
  BOOST_TEST_REQUIRE(sink.seen.size() == 1U);
  BOOST_TEST((sink.seen[0].kind == replicant::schema_change_kind::destructive));
  BOOST_TEST((sink.seen[0].changes == std::vector<column_change>{{column_change_kind::dropped, "big"},
                                                                 {column_change_kind::type_widened, "code"}}),
             boost::test_tools::per_element());
}

// A sink that cannot follow a widening refuses it: the pipeline halts schema_change_rejected at the
// transaction that first uses the wider type, and acknowledges nothing from it on.
BOOST_AUTO_TEST_CASE(a_refused_widening_halts_where_the_new_shape_begins) {
  fixture f;
  memory_sink sink;  // its hook refuses every change
  event_log events;
  running<memory_sink> r{sink, f.pgoutput, f.options, &events.dispatcher};
  const lsn before = change_after_first_row(f, sink, "ALTER TABLE accounts ALTER COLUMN amount TYPE numeric(12,2)",
                                            "INSERT INTO accounts (id, amount, note) VALUES (2, 1234567890.12, "
                                            "'s3cr3t-NOTE-2')");
  BOOST_TEST_REQUIRE(r.ends_within(60s));
  BOOST_TEST(r.halted() == halt_reason::schema_change_rejected);
  const auto& h = r.pipeline.last_halt();
  BOOST_TEST_REQUIRE(h.has_value());
  BOOST_TEST(h->table.value().name == "accounts");
  BOOST_TEST_REQUIRE(h->at.has_value());
  BOOST_TEST(*h->at > before);
  BOOST_TEST_REQUIRE(sink.schema_change_contexts.size() == 1U);
  BOOST_TEST(sink.schema_change_contexts[0].at == h->at);
  BOOST_TEST(sink.snapshot().size() == 1U, "nothing after the change was delivered");
  BOOST_TEST(f.confirmed_flush() <= *h->at, "nothing from the change on was acknowledged");
  BOOST_TEST(
      events.contains("replicant.schema_change.halted table=public.accounts kind=widened "
                      "reason=schema_change_rejected"));
  BOOST_TEST(!events.contains(secret));
}

// Every destructive class halts schema_change_destructive (a sink without the hook) before the
// first row of the new shape, naming the table, and acknowledges nothing from that row's
// transaction on.
BOOST_AUTO_TEST_CASE(destructive_changes_halt_before_the_new_shape_and_acknowledge_nothing_after) {
  for (const auto& c : destructive_cases()) {
    BOOST_TEST_CONTEXT(c.ddl) {
      fixture f;
      hookless_sink sink;
      event_log events;
      running<hookless_sink> r{sink, f.pgoutput, f.options, &events.dispatcher};
      const lsn before = change_after_first_row(f, sink, c.ddl, c.insert_sql);
      BOOST_TEST_REQUIRE(r.ends_within(60s));
      BOOST_TEST(r.halted() == halt_reason::schema_change_destructive);
      const auto& h = r.pipeline.last_halt();
      BOOST_TEST_REQUIRE(h.has_value());
      BOOST_TEST(h->table.value().name == c.table);
      BOOST_TEST_REQUIRE(h->at.has_value());
      BOOST_TEST(*h->at > before, "the halt names the transaction with the new shape");
      BOOST_TEST(sink.delivered() == 1U, "nothing after the change was delivered");
      BOOST_TEST(f.confirmed_flush() <= *h->at, "nothing from the change on was acknowledged");
      BOOST_TEST(events.contains("replicant.schema_change.halted table=public." + c.table +
                                 " kind=destructive reason=schema_change_destructive"));
      BOOST_TEST(!events.contains("replicant.schema_change.additive"));
      BOOST_TEST(!events.contains(secret));
      BOOST_TEST(replicant::describe(*h).find(secret) == std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // schema_changes_tests
