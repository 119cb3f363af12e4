// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A user's spill policy (examples/custom_policies/mmap_spill.hpp), written against the public
// concept only, works like the library's own: it models replicant::spill_policy, a pipeline takes
// it, and a transaction spilled into its memory-mapped parts comes back whole and in order, also
// after a subtransaction abort cut into it.
#include "../../../examples/custom_policies/mmap_spill.hpp"

#include <boost/test/unit_test.hpp>

#include "archetypes/sink.hpp"
#include "support/common/temp_dir.hpp"
#include "support/sinks/spill_fixture.hpp"

#include <replicant/assembler/assembler.hpp>
#include <replicant/pipeline.hpp>

#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

BOOST_AUTO_TEST_SUITE(examples_mmap_spill_tests)

namespace pg = replicant::test;
using replicant::lsn;
using replicant::result;

static_assert(replicant::spill_policy<custom_policies::mmap_spill>);
static_assert(replicant::detail::check_spill_policy<custom_policies::mmap_spill>());
// The pipeline takes it as it takes disk_spill: one of it compiles, its whole run loop included.
// (Not an explicit instantiation: that would also instantiate the constructors a pgoutput pipeline
// refuses, those without its pgoutput_options, which Clang then reports.)
[[maybe_unused]] void run_a_pipeline_of_it(archetypes::sink& sink, const replicant::pipeline_options& options) {
  replicant::pgoutput_pipeline<archetypes::sink, replicant::sink_owned_checkpoint, custom_policies::mmap_spill> p{
      sink, replicant::pgoutput_options{}, options};
  p.run();
}

using pg::feed;
using pg::numbers;
using pg::orders_insert;
using pg::orders_relation;

BOOST_AUTO_TEST_SUITE(mmap_spill)

BOOST_AUTO_TEST_CASE(a_spilled_transaction_comes_back_whole_and_in_order) {
  pg::temp_dir dir{"replicant-mmap-spill"};
  custom_policies::mmap_spill policy{.dir = dir.path(), .max_bytes = 64U << 20U};
  const replicant::spill_context ctx{"orders_mirror", 16 * 1024};  // spills past 4 KiB
  replicant::assembler a;
  BOOST_TEST_REQUIRE(pg::start_spilling(a, policy, ctx).has_value());
  pg::id_reader r;
  std::vector<pg::bytes> in{pg::begin(lsn{0x900}, 0, 7), orders_relation()};
  for (int i = 1; i <= 20'000; ++i) in.push_back(orders_insert(std::nullopt, i));  // about 3 MB: the mapping grows
  BOOST_TEST_REQUIRE(feed(a, r, in).has_value());
  BOOST_TEST(a.resident_bytes() <= 4096U + 200U);
  BOOST_TEST(a.spilled_bytes() > 2'000'000U);
  BOOST_TEST(std::filesystem::is_empty(dir.path()), "its files are unlinked once open");
  BOOST_TEST_REQUIRE(feed(a, r, {pg::commit(lsn{0x900}, lsn{0x920}, 0)}).has_value());
  BOOST_TEST_REQUIRE(r.ids.size() == 1U);
  BOOST_TEST(!r.read_error.has_value());
  BOOST_TEST(r.ids[0] == numbers(1, 20'000), boost::test_tools::per_element());
  BOOST_TEST(r.spilled[0] > 0U);
  BOOST_TEST(a.spilled_bytes() == 0U);
}

BOOST_AUTO_TEST_CASE(a_subtransaction_abort_cuts_its_part_exactly) {
  pg::temp_dir dir{"replicant-mmap-spill"};
  custom_policies::mmap_spill policy{.dir = dir.path()};
  const replicant::spill_context ctx{"orders_mirror", 16 * 1024};
  replicant::assembler a{{.version = 2, .streaming = replicant::pgoutput_streaming::on}};
  BOOST_TEST_REQUIRE(pg::start_spilling(a, policy, ctx).has_value());
  pg::id_reader r;
  BOOST_TEST_REQUIRE(feed(a, r, pg::streamed_with_a_subtransaction()).has_value());
  BOOST_TEST(a.spilled_bytes() > 0U);
  BOOST_TEST_REQUIRE(feed(a, r, pg::its_subtransaction_rolled_back_then_committed()).has_value());
  BOOST_TEST_REQUIRE(r.ids.size() == 1U);
  BOOST_TEST(!r.read_error.has_value());
  BOOST_TEST(r.ids[0] == pg::keys_after_the_rollback(), boost::test_tools::per_element());
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

BOOST_AUTO_TEST_SUITE_END()  // examples_mmap_spill_tests
