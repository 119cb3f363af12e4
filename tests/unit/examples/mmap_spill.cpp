// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A user's spill policy (examples/custom_policies/mmap_spill.hpp), written against the public
// concept only, works like the library's own: it models replicant::spill_policy, a pipeline takes
// it, and a transaction spilled into its memory-mapped parts comes back whole and in order, also
// after a subtransaction abort cut into it.
#include "../../../examples/custom_policies/mmap_spill.hpp"

#define BOOST_TEST_MODULE replicant.unit.examples.mmap_spill
#include <boost/test/unit_test.hpp>

#include "archetypes/sink.hpp"
#include "support/pgoutput_builder.hpp"
#include "support/temp_dir.hpp"

#include <replicant/assembler.hpp>
#include <replicant/pipeline.hpp>

#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pg = replicant::test;
using replicant::lsn;
using replicant::result;

static_assert(replicant::spill_policy<custom_policies::mmap_spill>);
static_assert(replicant::detail::check_spill_policy<custom_policies::mmap_spill>());
// The pipeline takes it as it takes disk_spill.
template class replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint,
                                   custom_policies::mmap_spill, archetypes::sink>;

namespace {

constexpr std::uint32_t orders = 16384;

auto orders_relation(std::optional<std::uint32_t> xid = std::nullopt) -> pg::bytes {
  return pg::relation(xid, orders, "public", "orders", 'd', {{"id", 23, -1, true}, {"label", 25, -1, false}});
}
auto ins(std::optional<std::uint32_t> xid, int id) -> pg::bytes {
  return pg::insert(xid, orders, {pg::col::text(std::to_string(id)), pg::col::text(std::string(100, 'x'))});
}

struct reader {
  std::vector<std::vector<int>> ids;
  std::vector<std::uint64_t> spilled;
  auto operator()(replicant::transaction&& t) -> result<void> {
    std::vector<int> seen;
    for (const auto& c : t.changes()) seen.push_back(static_cast<int>(c.record().value("id")->get<std::int64_t>()));
    ids.push_back(std::move(seen));
    spilled.push_back(t.spilled_bytes());
    return {};
  }
  auto operator()(const replicant::logical_message&) -> result<void> { return {}; }
  auto operator()(const replicant::schema_change&) -> result<void> { return {}; }
  auto operator()(const replicant::empty_commit&) -> result<void> { return {}; }
  auto operator()(const replicant::prepared_event&) -> result<void> { return {}; }
  auto operator()(const replicant::rollback_prepared_event&) -> result<void> { return {}; }
  auto operator()(const replicant::stream_abort_event&) -> result<void> { return {}; }
};

auto feed(replicant::assembler& a, reader& r, const std::vector<pg::bytes>& messages) -> result<void> {
  for (const auto& m : messages) {
    if (auto pushed = a.push(m, r); !pushed) return pushed;
  }
  return {};
}

auto numbers(int first, int last) -> std::vector<int> {
  std::vector<int> out;
  for (int i = first; i <= last; ++i) out.push_back(i);
  return out;
}

// What the pipeline does with a spill policy at the start of a session.
auto start(replicant::assembler& a, custom_policies::mmap_spill& policy, const replicant::spill_context& ctx)
    -> result<void> {
  if (auto ready = policy.prepare(ctx); !ready) return ready;
  if (const auto limits = std::as_const(policy).limits(ctx)) {
    a.enable_spill(*limits, [&policy, ctx] { return policy.open(ctx); });
  }
  return {};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(mmap_spill)

BOOST_AUTO_TEST_CASE(a_spilled_transaction_comes_back_whole_and_in_order) {
  pg::temp_dir dir{"replicant-mmap-spill"};
  custom_policies::mmap_spill policy{.dir = dir.path(), .max_bytes = 64U << 20U};
  const replicant::spill_context ctx{"orders_mirror", 16 * 1024};  // spills past 4 KiB
  replicant::assembler a;
  BOOST_TEST_REQUIRE(start(a, policy, ctx).has_value());
  reader r;
  std::vector<pg::bytes> in{pg::begin(lsn{0x900}, 0, 7), orders_relation()};
  for (int i = 1; i <= 20'000; ++i) in.push_back(ins(std::nullopt, i));  // about 3 MB: the mapping grows
  BOOST_TEST_REQUIRE(feed(a, r, in).has_value());
  BOOST_TEST(a.resident_bytes() <= 4096U + 200U);
  BOOST_TEST(a.spilled_bytes() > 2'000'000U);
  BOOST_TEST(std::filesystem::is_empty(dir.path()), "its files are unlinked once open");
  BOOST_TEST_REQUIRE(feed(a, r, {pg::commit(lsn{0x900}, lsn{0x920}, 0)}).has_value());
  BOOST_TEST_REQUIRE(r.ids.size() == 1U);
  BOOST_TEST(r.ids[0] == numbers(1, 20'000), boost::test_tools::per_element());
  BOOST_TEST(r.spilled[0] > 0U);
  BOOST_TEST(a.spilled_bytes() == 0U);
}

BOOST_AUTO_TEST_CASE(a_subtransaction_abort_cuts_its_part_exactly) {
  pg::temp_dir dir{"replicant-mmap-spill"};
  custom_policies::mmap_spill policy{.dir = dir.path()};
  const replicant::spill_context ctx{"orders_mirror", 16 * 1024};
  replicant::assembler a{{.version = 2, .streaming = replicant::pgoutput_streaming::on}};
  BOOST_TEST_REQUIRE(start(a, policy, ctx).has_value());
  reader r;
  std::vector<pg::bytes> in{pg::stream_start(10, true), orders_relation(10)};
  for (int i = 1; i <= 100; ++i) in.push_back(ins(10, i));
  for (int i = 101; i <= 200; ++i) in.push_back(ins(11, i));
  in.push_back(pg::stream_stop());
  BOOST_TEST_REQUIRE(feed(a, r, in).has_value());
  BOOST_TEST(a.spilled_bytes() > 0U);
  in = {pg::stream_abort(10, 11), pg::stream_start(10, false)};
  for (int i = 201; i <= 210; ++i) in.push_back(ins(10, i));
  in.push_back(pg::stream_stop());
  in.push_back(pg::stream_commit(10, lsn{0x400}, lsn{0x420}, 0));
  BOOST_TEST_REQUIRE(feed(a, r, in).has_value());
  auto expected = numbers(1, 100);
  const auto tail = numbers(201, 210);
  expected.insert(expected.end(), tail.begin(), tail.end());
  BOOST_TEST_REQUIRE(r.ids.size() == 1U);
  BOOST_TEST(r.ids[0] == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_directory_others_can_write_into_is_refused) {
  pg::temp_dir dir{"replicant-mmap-spill"};
  BOOST_TEST_REQUIRE(::chmod(dir.path().c_str(), 0777) == 0);
  custom_policies::mmap_spill policy{.dir = dir.path()};
  const auto ready = policy.prepare({"orders_mirror", 1U << 20U});
  BOOST_TEST_REQUIRE(!ready.has_value());
  BOOST_TEST(ready.error() == replicant::errc::io_failed);
  BOOST_TEST(!custom_policies::mmap_spill{.dir = dir.path() / "missing"}.prepare({"s", 1}).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
