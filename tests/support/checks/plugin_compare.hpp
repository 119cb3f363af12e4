// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_CHECKS_PLUGIN_COMPARE_HPP
#define REPLICANT_TESTS_SUPPORT_CHECKS_PLUGIN_COMPARE_HPP

/// @file
/// What the translating decoders' golden tests share under Boost.Test: the two replays they compare
/// (support/wire/plugin_replay.hpp), the pgoutput capture's and the plugin capture's through its
/// decoder, each required to decode whole; and their comparison, transaction by transaction, change
/// by change, field by field, with the failing place named in the test log. Include it after
/// <boost/test/unit_test.hpp>.

#include "support/wire/capture_file.hpp"
#include "support/wire/plugin_replay.hpp"

#include <boost/test/unit_test.hpp>

#include <replicant/assembler/assembler.hpp>

#include <cstddef>
#include <filesystem>
#include <span>
#include <vector>

namespace replicant::test {

/// The pgoutput capture at @p path replayed through an assembler of its protocol: what a golden test
/// holds a plugin's replay against. Every record must decode and the session end between
/// transactions (BOOST_TEST_REQUIRE).
inline auto replay_pgoutput_capture(const std::filesystem::path& path) -> replay_result {
  const auto capture = read_capture(path);
  replay_result out;
  assembler a{capture.header.protocol()};
  recording_handler handler{out};
  const auto done =
      for_each_xlog(capture.records, [&](std::span<const std::byte> data) { return a.push(data, handler); });
  BOOST_TEST_REQUIRE(done.has_value());
  BOOST_TEST_REQUIRE(a.idle());
  return out;
}

/// The records of a plugin capture translated by @p decoder into pgoutput and replayed through an
/// assembler. Every record must translate and decode (the error is named otherwise) and the session
/// end between transactions (BOOST_TEST_REQUIRE); what else the decoder must say afterwards is the
/// caller's to check on @p decoder.
template <class Decoder>
auto replay_translated(Decoder& decoder, const std::vector<std::vector<std::byte>>& records) -> replay_result {
  replay_result out;
  assembler a;
  recording_handler handler{out};
  const auto done = for_each_xlog(records, [&](std::span<const std::byte> data) {
    return decoder.translate(data, [&](std::span<const std::byte> m) { return a.push(m, handler); });
  });
  BOOST_TEST_REQUIRE(done.has_value(), (done ? "" : done.error().message()));
  BOOST_TEST_REQUIRE(a.idle());
  return out;
}

// Compares two replays transaction by transaction, change by change, field by field.
inline auto require_same(const replay_result& expected, const replay_result& got) -> void {
  BOOST_TEST_REQUIRE(got.transactions.size() == expected.transactions.size());
  for (std::size_t i = 0; i < expected.transactions.size(); ++i) {
    const auto& e = expected.transactions[i];
    const auto& g = got.transactions[i];
    BOOST_TEST_CONTEXT("transaction " << i << " xid " << e.xid) {
      BOOST_TEST(g.xid == e.xid);
      BOOST_TEST(g.commit_lsn == e.commit_lsn);
      BOOST_TEST(g.end_lsn == e.end_lsn);
      BOOST_TEST((g.commit_time == e.commit_time));
      BOOST_TEST_REQUIRE(g.changes.size() == e.changes.size());
      for (std::size_t k = 0; k < e.changes.size(); ++k) {
        const auto& ec = e.changes[k];
        const auto& gc = g.changes[k];
        BOOST_TEST_CONTEXT("change " << k << " " << ec.op << " " << ec.table) {
          BOOST_TEST(gc.op == ec.op);
          BOOST_TEST(gc.table == ec.table);
          BOOST_TEST(gc.relation_oid == ec.relation_oid);
          BOOST_TEST(gc.identity == ec.identity);
          BOOST_TEST_REQUIRE(gc.columns.size() == ec.columns.size());
          for (std::size_t c = 0; c < ec.columns.size(); ++c) {
            BOOST_TEST_CONTEXT("column " << ec.columns[c].name) {
              BOOST_TEST(gc.columns[c].name == ec.columns[c].name);
              BOOST_TEST(gc.columns[c].type_oid == ec.columns[c].type_oid);
              BOOST_TEST(gc.columns[c].type_modifier == ec.columns[c].type_modifier);
              BOOST_TEST(gc.columns[c].key == ec.columns[c].key);
            }
          }
          BOOST_TEST(gc.old_kind == ec.old_kind);
          BOOST_TEST(gc.record == ec.record, boost::test_tools::per_element());
          BOOST_TEST(gc.old == ec.old, boost::test_tools::per_element());
          BOOST_TEST(gc.unchanged == ec.unchanged, boost::test_tools::per_element());
          BOOST_TEST(gc.cascade == ec.cascade);
          BOOST_TEST(gc.restart_identity == ec.restart_identity);
        }
      }
      BOOST_TEST(g.messages == e.messages);
      BOOST_TEST(g.origin == e.origin);
      BOOST_TEST(g.origin_lsn == e.origin_lsn);
    }
  }
  BOOST_TEST(got.loose_messages == expected.loose_messages);
  BOOST_TEST(got.schema_changes == expected.schema_changes, boost::test_tools::per_element());
}

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_CHECKS_PLUGIN_COMPARE_HPP
