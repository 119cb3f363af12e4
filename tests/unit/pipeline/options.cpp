// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Every options type builds with designated initializers (an aggregate without a base class or a
// user constructor: compiling this file is most of the test), and each keeps the value given.
// The start mode is one value, so two start modes cannot be asked for at once.
#include <replicant/pipeline/options.hpp>

#include <boost/test/unit_test.hpp>

#include <replicant/decoder/pglogical.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/decoder/wal2json.hpp>

#include <chrono>
#include <type_traits>
#include <variant>

BOOST_AUTO_TEST_SUITE(pipeline_options_tests)

using namespace std::chrono_literals;
using replicant::halt_reason;

namespace {

template <class T>
inline constexpr bool plain_aggregate = std::is_aggregate_v<T> && std::is_default_constructible_v<T>;

static_assert(plain_aggregate<replicant::pipeline_options>);
static_assert(plain_aggregate<replicant::pgoutput_options>);
static_assert(plain_aggregate<replicant::wal2json_options>);
static_assert(plain_aggregate<replicant::pglogical_options>);
static_assert(plain_aggregate<replicant::start::point_in_time_snapshot>);
static_assert(plain_aggregate<replicant::start::incremental_snapshot>);

auto valid() -> replicant::pipeline_options { return {.conninfo = "dbname=x", .slot = "s"}; }

}  // namespace

BOOST_AUTO_TEST_SUITE(pipeline_options)

BOOST_AUTO_TEST_CASE(every_options_type_takes_designated_initializers) {
  const replicant::pipeline_options o{.conninfo = "dbname=shop",
                                      .slot = "shop_mirror",
                                      .start = replicant::start::incremental_snapshot{.chunk_rows = 500},
                                      .failover = true,
                                      .max_inflight_bytes = 1024,
                                      .status_interval = 2s};
  BOOST_TEST(o.slot == "shop_mirror");
  BOOST_TEST(o.failover);
  BOOST_TEST(o.max_inflight_bytes == 1024U);
  BOOST_TEST(o.status_interval.count() == 2000);
  BOOST_TEST(o.create_slot);  // what is not named keeps its default
  const auto* incremental = std::get_if<replicant::start::incremental_snapshot>(&o.start);
  BOOST_TEST_REQUIRE(incremental != nullptr);
  BOOST_TEST(incremental->chunk_rows == 500U);
  BOOST_TEST(incremental->max_pending_chunks == 4U);

  const replicant::pgoutput_options p{.publications = {"shop_pub"},
                                      .protocol_version = 4,
                                      .streaming = true,
                                      .messages = true,
                                      .origin = replicant::origin_filter::none};
  BOOST_TEST(p.publications.size() == 1U);
  BOOST_TEST(p.protocol_version == 4U);
  BOOST_TEST((p.streaming && p.messages && !p.two_phase && !p.binary));
  BOOST_TEST((p.origin == replicant::origin_filter::none));

  const replicant::wal2json_options w{.tables = {{"public", "orders"}}, .messages = true, .schema_check_interval = 5s};
  BOOST_TEST(w.tables.size() == 1U);
  BOOST_TEST(w.messages);
  BOOST_TEST(w.schema_check_interval.count() == 5000);

  const replicant::pglogical_options g{.replication_sets = {"default"}};
  BOOST_TEST(g.replication_sets.size() == 1U);

  const replicant::start::point_in_time_snapshot pit{.batch_rows = 10};
  BOOST_TEST(pit.batch_rows == 10U);
}

// Every member has a default member initializer, so any subset may be named, the first member
// included, without -Wmissing-field-initializers (an error under -Werror) for the ones left out.
BOOST_AUTO_TEST_CASE(any_subset_of_members_may_be_named) {
  const replicant::pipeline_options o{.start = replicant::start::go_forward{}};
  BOOST_TEST(std::holds_alternative<replicant::start::go_forward>(o.start));
  BOOST_TEST(o.conninfo.empty());
  BOOST_TEST(replicant::pgoutput_options{.two_phase = true}.two_phase);
  BOOST_TEST(replicant::wal2json_options{.allow_keyless_tables = true}.tables.empty());
  BOOST_TEST(!replicant::pglogical_options{.forward_origins = false}.forward_origins);
  BOOST_TEST(replicant::start::incremental_snapshot{.max_pending_chunks = 1}.chunk_rows == 1024U);
}

BOOST_AUTO_TEST_CASE(refuses_to_start_without_a_checkpoint_by_default) {
  const replicant::pipeline_options o;
  BOOST_TEST(std::holds_alternative<replicant::start::resume_only>(o.start));
  BOOST_TEST(!replicant::takes_snapshot(o.start));
}

BOOST_AUTO_TEST_CASE(validates_the_settings_of_the_start_mode_it_holds) {
  auto o = valid();
  for (const replicant::start_mode mode :
       {replicant::start_mode{replicant::start::resume_only{}}, replicant::start_mode{replicant::start::go_forward{}},
        replicant::start_mode{replicant::start::point_in_time_snapshot{}},
        replicant::start_mode{replicant::start::incremental_snapshot{}}}) {
    o.start = mode;
    BOOST_TEST(replicant::validate(o).has_value(), "alternative " << mode.index());
  }
  o.start = replicant::start::point_in_time_snapshot{.batch_rows = 0};
  BOOST_TEST((replicant::validate(o).error().reason == halt_reason::config_invalid));
  o.start = replicant::start::incremental_snapshot{.chunk_rows = 0};
  BOOST_TEST((replicant::validate(o).error().reason == halt_reason::config_invalid));
  o.start = replicant::start::incremental_snapshot{.max_pending_chunks = 0};
  BOOST_TEST((replicant::validate(o).error().reason == halt_reason::config_invalid));
  BOOST_TEST(replicant::takes_snapshot(o.start));
  o.start = replicant::start::go_forward{};
  BOOST_TEST(!replicant::takes_snapshot(o.start));
}

BOOST_AUTO_TEST_CASE(validates_the_pipelines_own_settings) {
  BOOST_TEST(replicant::validate(valid()).has_value());
  auto o = valid();
  o.slot = "Bad Slot";
  BOOST_TEST((replicant::validate(o).error().reason == halt_reason::invalid_identifier));
  o = valid();
  o.conninfo.clear();
  BOOST_TEST((replicant::validate(o).error().reason == halt_reason::config_invalid));
  o = valid();
  o.max_reconnect_delay = o.reconnect_delay - 1ms;
  BOOST_TEST((replicant::validate(o).error().reason == halt_reason::config_invalid));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // pipeline_options_tests
