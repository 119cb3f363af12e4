// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-pg-mirror's sinks (examples/pg_mirror/mirror_sink.hpp, mirror_deferred_sink.hpp) fit
// exactly the checkpoint policy each is meant for, and nothing else; their shared core reports an
// unreachable target as retryable without a server. The live behaviour is
// tests/integration/examples/exactly_once.cpp.
#include "../../../examples/pg_mirror/mirror_deferred_sink.hpp"
#include "../../../examples/pg_mirror/mirror_sink.hpp"

#include <boost/test/unit_test.hpp>

#include <replicant/checkpoint/deferred.hpp>
#include <replicant/checkpoint/lib_owned.hpp>
#include <replicant/checkpoint/postgres_store.hpp>
#include <replicant/checkpoint/sink_owned.hpp>
#include <replicant/checkpoint/sink_owned_batches.hpp>
#include <replicant/core/error.hpp>
#include <replicant/pipeline/sink_for.hpp>
#include <replicant/sink/concepts.hpp>

#include <span>

BOOST_AUTO_TEST_SUITE(examples_pg_mirror_sink_tests)

namespace mirror = replicant::examples::pg_mirror;

// Each sink models its own concept ...
static_assert(replicant::sink<mirror::mirror_sink>);
static_assert(replicant::batch_sink<mirror::mirror_batch_sink>);
static_assert(replicant::lib_mode_sink<mirror::mirror_lib_sink>);
static_assert(replicant::detail::check_sink<mirror::mirror_sink, replicant::sink_owned_checkpoint>());
static_assert(replicant::detail::check_sink<mirror::mirror_batch_sink, replicant::sink_owned_batches>());
static_assert(replicant::detail::check_sink<mirror::mirror_lib_sink,
                                            replicant::lib_owned_checkpoint<replicant::postgres_checkpoint_store>>());
// ... and no other: the lib-mode sink keeps no checkpoint of its own, and the checkpointing sinks
// would be refused by lib mode, whose store must be the only checkpoint.
static_assert(!replicant::sink<mirror::mirror_lib_sink>);
static_assert(!replicant::batch_sink<mirror::mirror_lib_sink>);
static_assert(!replicant::lib_mode_sink<mirror::mirror_sink>);
static_assert(!replicant::lib_mode_sink<mirror::mirror_batch_sink>);
static_assert(!replicant::batch_sink<mirror::mirror_sink>);
static_assert(!replicant::sink<mirror::mirror_batch_sink>);
// The deferred sink confirms later, through the handle it is given; the others return at once
// what is durable, and do not fit deferred_checkpoint.
static_assert(replicant::deferred_sink<mirror::mirror_deferred_sink>);
static_assert(replicant::detail::check_sink<mirror::mirror_deferred_sink, replicant::deferred_checkpoint>());
static_assert(!replicant::sink<mirror::mirror_deferred_sink>);
static_assert(!replicant::lib_mode_sink<mirror::mirror_deferred_sink>);
static_assert(!replicant::deferred_sink<mirror::mirror_sink>);

BOOST_AUTO_TEST_SUITE(pg_mirror_sink)

BOOST_AUTO_TEST_CASE(an_unreachable_target_is_a_retryable_failure) {
  mirror::mirror_target target{"host=/nonexistent-replicant-dir port=1 dbname=x connect_timeout=2", "s1", -1};
  for (bool own_checkpoint : {true, false}) {
    auto r = target.prepare(own_checkpoint);
    BOOST_TEST_REQUIRE(!r);
    BOOST_TEST((r.error() == replicant::errc::connection_failed));
    BOOST_TEST(target.retryable(), "a target that is down is waited for, not given up on");
    BOOST_TEST(target.sqlstate().empty());
  }
  mirror::mirror_sink sink{target};
  auto c = sink.checkpoint();
  BOOST_TEST_REQUIRE(!c);
  BOOST_TEST(target.retryable());
  BOOST_TEST(target.counts().applied == 0U);
  BOOST_TEST(target.counts().commits == 0U);
}

BOOST_AUTO_TEST_CASE(the_deferred_sink_reports_an_unreachable_target_as_retryable) {
  mirror::mirror_target target{"host=/nonexistent-replicant-dir port=1 dbname=x connect_timeout=2", "s1", -1};
  mirror::mirror_deferred_sink sink{
      target, mirror::mirror_target{"host=/nonexistent-replicant-dir port=1 dbname=x connect_timeout=2", "s1", -1}};
  auto c = sink.checkpoint();
  BOOST_TEST_REQUIRE(!c);
  BOOST_TEST(sink.retryable(), "the checkpoint read's failure is the sink's to report");
  BOOST_TEST(sink.counts().applied == 0U);
  BOOST_TEST(sink.hook_actions() == 0U);
}

BOOST_AUTO_TEST_CASE(an_empty_batch_is_refused_without_touching_the_target) {
  mirror::mirror_target target{"host=/nonexistent-replicant-dir port=1 dbname=x connect_timeout=2", "s1", -1};
  mirror::mirror_batch_sink sink{target};
  auto r = sink.handle_batch(std::span<const replicant::transaction>{});
  BOOST_TEST_REQUIRE(!r);
  BOOST_TEST((r.error() == replicant::errc::sink_failed));
  BOOST_TEST(!target.retryable(), "no connection was tried");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // examples_pg_mirror_sink_tests
