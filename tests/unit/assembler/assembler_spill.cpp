// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The assembler with spilling to disk (the disk_spill policy's parts): a transaction larger than the
// threshold is delivered whole, in order, with its changes read back from its spill file;
// subtransaction aborts cut spilled changes exactly; the disk bound is an error; files never outlive
// the process; the policy's prepare() makes the directory and sweeps only this slot's leftovers.
#include <replicant/assembler/assembler.hpp>

#include <boost/test/unit_test.hpp>

#include "support/common/temp_dir.hpp"
#include "support/sinks/spill_fixture.hpp"

#include <replicant/spill/disk.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(assembler_assembler_spill_tests)

namespace pg = replicant::test;
using replicant::errc;
using replicant::lsn;
using replicant::result;

namespace {

using pg::feed;
using pg::orders_insert;
using pg::orders_relation;

// Keeps what it is given; reads every transaction's changes at once (as a sink would, during the call).
struct reader : pg::other_events_accepted {
  using pg::other_events_accepted::operator();

  std::vector<std::vector<std::string>> ids;  // per transaction
  std::vector<std::uint64_t> spilled;
  std::vector<std::string> messages;
  auto operator()(replicant::transaction&& t) -> result<void> {
    std::vector<std::string> seen;
    for (const auto& c : t.changes()) {
      if (c.op() == replicant::change_op::truncate) {
        seen.push_back("truncate:" + std::string{c.relation().table});
        continue;
      }
      auto v = c.record().value("id");
      seen.push_back(v && !v->is_null() ? std::to_string(v->get<std::int64_t>()) : "?");
    }
    BOOST_TEST(seen.size() == t.change_count());
    ids.push_back(std::move(seen));
    spilled.push_back(t.spilled_bytes());
    for (const auto& m : t.messages()) messages.emplace_back(m.prefix);
    return {};
  }
};

auto numbers(int first, int last) -> std::vector<std::string> {
  std::vector<std::string> out;
  for (int i = first; i <= last; ++i) out.push_back(std::to_string(i));
  return out;
}

auto files_in(const std::filesystem::path& dir) -> std::size_t {
  std::error_code ec;
  return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator{dir, ec}, {}));
}

// Spills into dir as the pipeline does with disk_spill: prepare() once, then a part per transaction
// from open(); but with limits of the test's choosing.
auto enable_disk_spill(replicant::assembler& a, const std::filesystem::path& dir, std::size_t threshold = 4096,
                       std::uint64_t max = 1U << 30U) -> result<void> {
  replicant::disk_spill policy{.dir = dir};
  const replicant::spill_context ctx{"test", std::size_t{64} << 20U};
  if (auto ready = policy.prepare(ctx); !ready) return ready;
  a.enable_spill({threshold, max}, [policy, ctx]() mutable { return policy.open(ctx); });
  return {};
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_large_transaction_is_spilled_and_delivered_whole_in_order) {
  pg::temp_dir dir{"replicant-spill-test"};
  replicant::assembler a;
  BOOST_TEST_REQUIRE(enable_disk_spill(a, dir.path() / "spill").has_value());
  reader r;
  std::vector<pg::bytes> in{pg::begin(lsn{0x900}, 0, 7), orders_relation()};
  for (int i = 1; i <= 500; ++i) {
    in.push_back(orders_insert(std::nullopt, i));
    if (i == 250) in.push_back(pg::message(std::nullopt, true, lsn{0x500}, "halfway", "x"));
  }
  in.push_back(pg::truncate(std::nullopt, 0, {pg::orders_oid}));
  BOOST_TEST_REQUIRE(feed(a, r, in).has_value());
  BOOST_TEST(a.resident_bytes() <= 4096U + 200U);  // the threshold, give or take the last change
  BOOST_TEST(a.spilled_bytes() > 40'000U);
  BOOST_TEST(files_in(dir.path() / "spill") == 0U, "spill files are unlinked as soon as they are made");
  BOOST_TEST_REQUIRE(feed(a, r, {pg::commit(lsn{0x900}, lsn{0x920}, 0)}).has_value());
  BOOST_TEST_REQUIRE(r.ids.size() == 1U);
  auto expected = numbers(1, 500);
  expected.emplace_back("truncate:orders");
  BOOST_TEST(r.ids[0] == expected, boost::test_tools::per_element());
  BOOST_TEST(r.spilled[0] > 0U);
  BOOST_TEST((r.messages == std::vector<std::string>{"halfway"}));
  BOOST_TEST(a.spilled_bytes() == 0U);
}

BOOST_AUTO_TEST_CASE(iterating_again_reads_the_spilled_changes_again) {
  pg::temp_dir dir{"replicant-spill-test"};
  replicant::assembler a;
  BOOST_TEST_REQUIRE(enable_disk_spill(a, dir.path()).has_value());
  struct twice : reader {
    using reader::operator();
    auto operator()(replicant::transaction&& t) -> result<void> {
      std::size_t first = 0;
      std::size_t second = 0;
      for (const auto& c : t.changes()) first += c.record().size();
      for (const auto& c : t.changes()) second += c.record().size();
      BOOST_TEST(first == second);
      BOOST_TEST(first == 2U * t.change_count());
      return reader::operator()(std::move(t));
    }
  } r;
  std::vector<pg::bytes> in{pg::begin(lsn{0x900}, 0, 7), orders_relation()};
  for (int i = 1; i <= 200; ++i) in.push_back(orders_insert(std::nullopt, i));
  in.push_back(pg::commit(lsn{0x900}, lsn{0x920}, 0));
  BOOST_TEST_REQUIRE(feed(a, r, in).has_value());
  BOOST_TEST(r.ids.at(0) == numbers(1, 200), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_subtransaction_abort_cuts_spilled_changes_exactly) {
  pg::temp_dir dir{"replicant-spill-test"};
  replicant::assembler a{{.version = 2, .streaming = replicant::pgoutput_streaming::on}};
  BOOST_TEST_REQUIRE(enable_disk_spill(a, dir.path()).has_value());
  reader r;
  std::vector<pg::bytes> in{pg::stream_start(10, true), orders_relation(10)};
  for (int i = 1; i <= 100; ++i) in.push_back(orders_insert(10, i));
  for (int i = 101; i <= 200; ++i) in.push_back(orders_insert(11, i));  // subtransaction 11, spilled with the rest
  in.push_back(pg::stream_stop());
  BOOST_TEST_REQUIRE(feed(a, r, in).has_value());
  BOOST_TEST(a.spilled_bytes() > 0U);
  in = {pg::stream_abort(10, 11), pg::stream_start(10, false)};
  for (int i = 201; i <= 210; ++i) in.push_back(orders_insert(10, i));
  in.push_back(pg::stream_stop());
  in.push_back(pg::stream_commit(10, lsn{0x400}, lsn{0x420}, 0));
  BOOST_TEST_REQUIRE(feed(a, r, in).has_value());
  auto expected = numbers(1, 100);
  const auto tail = numbers(201, 210);
  expected.insert(expected.end(), tail.begin(), tail.end());
  BOOST_TEST_REQUIRE(r.ids.size() == 1U);
  BOOST_TEST(r.ids[0] == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(the_disk_bound_is_an_error_and_nothing_is_left_behind) {
  pg::temp_dir dir{"replicant-spill-test"};
  replicant::assembler a;
  BOOST_TEST_REQUIRE(enable_disk_spill(a, dir.path(), 2048, 16 * 1024).has_value());
  reader r;
  std::vector<pg::bytes> in{pg::begin(lsn{0x900}, 0, 7), orders_relation()};
  for (int i = 1; i <= 1000; ++i) in.push_back(orders_insert(std::nullopt, i));
  const auto fed = feed(a, r, in);
  BOOST_TEST_REQUIRE(!fed.has_value());
  BOOST_TEST(fed.error() == replicant::errc::spill_exhausted);
  a.reset();
  BOOST_TEST(a.spilled_bytes() == 0U);
  BOOST_TEST(files_in(dir.path()) == 0U);
}

BOOST_AUTO_TEST_CASE(a_directory_that_cannot_be_made_is_an_io_error) {
  pg::temp_dir dir{"replicant-spill-test"};
  const auto blocker = dir.path() / "file";
  {
    std::ofstream{blocker} << "x";
  }
  replicant::assembler a;
  const auto enabled = enable_disk_spill(a, blocker / "spill");  // under a regular file: cannot exist
  BOOST_TEST_REQUIRE(!enabled.has_value());
  BOOST_TEST(enabled.error() == errc::io_failed);
}

BOOST_AUTO_TEST_CASE(a_directory_that_vanished_is_an_io_error_at_the_first_spill) {
  pg::temp_dir dir{"replicant-spill-test"};
  replicant::assembler a;
  BOOST_TEST_REQUIRE(enable_disk_spill(a, dir.path() / "spill").has_value());
  std::filesystem::remove(dir.path() / "spill");
  reader r;
  std::vector<pg::bytes> in{pg::begin(lsn{0x900}, 0, 7), orders_relation()};
  for (int i = 1; i <= 100; ++i) in.push_back(orders_insert(std::nullopt, i));
  const auto fed = feed(a, r, in);
  BOOST_TEST_REQUIRE(!fed.has_value());
  BOOST_TEST(fed.error() == errc::io_failed);
}

BOOST_AUTO_TEST_CASE(the_sweep_removes_only_this_slots_leftovers) {
  pg::temp_dir dir{"replicant-spill-test"};
  {
    std::ofstream{dir.path() / "replicant-a-1-0.spill"} << "x";
  }
  {
    std::ofstream{dir.path() / "replicant-ab-1-0.spill"} << "x";
  }
  {
    std::ofstream{dir.path() / "replicant-a-notes.txt"} << "x";
  }
  replicant::disk_spill policy{.dir = dir.path()};
  BOOST_TEST_REQUIRE(policy.prepare({"a", 1U << 20U}).has_value());
  BOOST_TEST(!std::filesystem::exists(dir.path() / "replicant-a-1-0.spill"));
  BOOST_TEST(std::filesystem::exists(dir.path() / "replicant-ab-1-0.spill"));
  BOOST_TEST(std::filesystem::exists(dir.path() / "replicant-a-notes.txt"));
}

BOOST_AUTO_TEST_SUITE_END()  // assembler_assembler_spill_tests
