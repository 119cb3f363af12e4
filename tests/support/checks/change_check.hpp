// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_CHECKS_CHANGE_CHECK_HPP
#define REPLICANT_TESTS_SUPPORT_CHECKS_CHANGE_CHECK_HPP

/// @file
/// The independent readers' side of the broker sinks' live tests (jetstream.cpp, kafka.cpp): one
/// change record of the sinks' JSON format as a reader takes it (parse_change()), and the check of
/// the changes a reader applied, in its order, against the tables of
/// support/writers/source_writer.hpp (check_against_source()). Written apart from the sinks on
/// purpose: it shares no code with them. Boost.Test only: include it after the test module's
/// `<boost/test/unit_test.hpp>`.

#include <boost/test/unit_test.hpp>

#include "support/server/pg_cluster.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace replicant::test {

/// One change as a reader took it from a record's body.
struct change_seen {
  /// Where the broker keeps it (a subject, a topic), as the test names it.
  std::string subject;
  std::string schema;
  std::string table;
  std::string op;
  /// The record's integer columns.
  std::map<std::string, std::int64_t> numbers;
  /// The old key's (or old row's) integer columns: a delete's.
  std::map<std::string, std::int64_t> old_numbers;
};

/// The change in @p body (one JSON object of the sinks' format), or none when it is not one.
inline auto parse_change(std::string_view body, std::string subject, simdjson::dom::parser& parser)
    -> std::optional<change_seen> {
  simdjson::dom::element doc;
  if (parser.parse(simdjson::padded_string{body}).get(doc) != simdjson::SUCCESS) return std::nullopt;
  change_seen c;
  c.subject = std::move(subject);
  std::string_view v;
  if (doc["schema"].get(v) != simdjson::SUCCESS) return std::nullopt;
  c.schema = v;
  if (doc["table"].get(v) != simdjson::SUCCESS) return std::nullopt;
  c.table = v;
  if (doc["op"].get(v) != simdjson::SUCCESS) return std::nullopt;
  c.op = v;
  for (auto [field, into] : {std::pair{"record", &c.numbers}, std::pair{"old", &c.old_numbers}}) {
    simdjson::dom::object columns;
    if (doc[field].get(columns) != simdjson::SUCCESS) continue;
    for (auto [key, value] : columns) {
      std::int64_t n = 0;
      if (value.get(n) == simdjson::SUCCESS) into->emplace(std::string{key}, n);
    }
  }
  return c;
}

/**
 * Checks @p changes, in the order a reader applied them, against the source tables in @p database:
 * the writer's transactions (`txlog`) first..@p committed each once and in order, per `counters`
 * key consecutive values up to the source's, the `events` and `"Odd.Name v2"` rows of those
 * transactions each once and in order. With @p head_removed the broker may have dropped the oldest
 * transactions: the first one counted may then be past 1, and the counters need not start at 1.
 * @return the first writer transaction found (1 unless the head was removed).
 */
inline auto check_against_source(const std::vector<const change_seen*>& changes, pg_cluster& pg,
                                 const std::string& database, std::uint64_t committed, bool head_removed = false)
    -> std::int64_t {
  std::vector<std::int64_t> txlog;
  std::map<std::int64_t, std::vector<std::int64_t>> counters;  // key -> v in reading order
  std::vector<std::pair<std::int64_t, std::int64_t>> events;
  std::vector<std::int64_t> odd;
  std::uint64_t out_of_order = 0;
  for (const change_seen* c : changes) {
    if (c->table == "txlog") txlog.push_back(c->numbers.at("id"));
    if (c->table == "counters") counters[c->numbers.at("k")].push_back(c->numbers.at("v"));
    if (c->table == "events") events.emplace_back(c->numbers.at("txn"), c->numbers.at("n"));
    if (c->table == "Odd.Name v2") odd.push_back(c->numbers.at("id"));
  }
  const std::int64_t first = txlog.empty() ? 1 : txlog.front();
  if (!head_removed) BOOST_TEST(first == 1);
  // txlog: first..N, each once, in order.
  BOOST_TEST(txlog.size() + static_cast<std::size_t>(first - 1) == committed);
  for (std::size_t i = 0; i < txlog.size(); ++i) {
    if (txlog[i] != first + static_cast<std::int64_t>(i)) ++out_of_order;
  }
  // counters: per key consecutive values up to the source's (from 1 unless the head was removed).
  for (const auto& source_row : pg.sql("SELECT k, v FROM counters ORDER BY k", database)) {
    const auto k = std::stoll(*source_row[0]);
    const auto v = std::stoll(*source_row[1]);
    const auto& seen = counters[k];
    if (!head_removed) BOOST_TEST(static_cast<std::int64_t>(seen.size()) == v);
    for (std::size_t i = 0; i < seen.size(); ++i) {
      if (seen[i] != v - static_cast<std::int64_t>(seen.size() - 1 - i)) ++out_of_order;
    }
  }
  // events: the source's rows (of the transactions counted), each once, in (txn, n) order.
  const auto from = std::to_string(first);
  BOOST_TEST(std::is_sorted(events.begin(), events.end()));
  BOOST_TEST((std::adjacent_find(events.begin(), events.end()) == events.end()));
  BOOST_TEST(events.size() == std::stoull(pg.scalar("SELECT count(*) FROM events WHERE txn >= " + from, database)));
  BOOST_TEST(odd.size() ==
             std::stoull(pg.scalar("SELECT count(*) FROM \"Odd.Name v2\" WHERE id >= " + from, database)));
  BOOST_TEST(std::is_sorted(odd.begin(), odd.end()));
  BOOST_TEST(out_of_order == 0U);
  return first;
}

/**
 * Replays the `scratch` changes of @p changes (scratch_writer's), in the order a reader applied
 * them, and checks them against the source table in @p database: every insert of a row not there
 * yet, every delete of a row that is, no row of a rolled-back transaction (a negative id), and the
 * rows left equal to the source's. @return the inserts and deletes replayed.
 */
inline auto check_scratch(const std::vector<const change_seen*>& changes, pg_cluster& pg, const std::string& database)
    -> std::pair<std::uint64_t, std::uint64_t> {
  std::set<std::int64_t> replayed;
  std::uint64_t inserts = 0;
  std::uint64_t deletes = 0;
  std::uint64_t inserted_twice = 0;
  std::uint64_t deleted_absent = 0;
  std::uint64_t rolled_back = 0;
  for (const change_seen* c : changes) {
    if (c->table != "scratch") continue;
    if (c->op == "insert") {
      const auto id = c->numbers.at("id");
      ++inserts;
      if (id < 0) ++rolled_back;
      if (!replayed.insert(id).second) ++inserted_twice;
    } else if (c->op == "delete") {
      ++deletes;
      if (replayed.erase(c->old_numbers.at("id")) == 0) ++deleted_absent;
    }
  }
  std::set<std::int64_t> source;
  for (const auto& source_row : pg.sql("SELECT id FROM scratch", database)) source.insert(std::stoll(*source_row[0]));
  BOOST_TEST(rolled_back == 0U);
  BOOST_TEST(inserted_twice == 0U);
  BOOST_TEST(deleted_absent == 0U);
  BOOST_TEST(replayed.size() == source.size());
  BOOST_TEST((replayed == source), "the replayed scratch rows differ from the source's");
  return {inserts, deletes};
}

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_CHECKS_CHANGE_CHECK_HPP
