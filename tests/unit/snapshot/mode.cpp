// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The snapshot start modes: which sinks and checkpoint stores the incremental one can serve, and
// which start modes read the existing rows.
#include <replicant/pipeline/options.hpp>

#include <boost/test/unit_test.hpp>

#include <replicant/pipeline/sink_for.hpp>

#include <optional>
#include <string>
#include <type_traits>

BOOST_AUTO_TEST_SUITE(snapshot_mode_tests)

namespace {

struct progress_sink {
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>>;
  auto handle_transaction(const replicant::transaction&) -> replicant::result<replicant::lsn>;
  auto handle_snapshot(const replicant::snapshot_batch&, const replicant::snapshot_context&) -> replicant::result<void>;
  auto snapshot_progress() -> replicant::result<std::optional<std::string>>;
};
struct no_progress_sink {
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>>;
  auto handle_transaction(const replicant::transaction&) -> replicant::result<replicant::lsn>;
  auto handle_snapshot(const replicant::snapshot_batch&, const replicant::snapshot_context&) -> replicant::result<void>;
};
struct lib_sink {
  auto handle_transaction(const replicant::transaction&) -> replicant::result<void>;
  auto handle_snapshot(const replicant::snapshot_batch&, const replicant::snapshot_context&) -> replicant::result<void>;
};
struct plain_store {
  auto read(const replicant::slot_name&) -> replicant::result<std::optional<replicant::lsn>>;
  auto write(const replicant::slot_name&, replicant::lsn) -> replicant::result<void>;
};
struct progress_keeping_store : plain_store {
  auto read_progress(const replicant::slot_name&) -> replicant::result<std::optional<std::string>>;
  auto write_progress(const replicant::slot_name&, std::string_view) -> replicant::result<void>;
};

using replicant::detail::supports_incremental_snapshot;
static_assert(supports_incremental_snapshot<progress_sink, replicant::sink_owned_checkpoint>);
static_assert(supports_incremental_snapshot<progress_sink, replicant::sink_owned_batches>);
static_assert(!supports_incremental_snapshot<no_progress_sink, replicant::sink_owned_checkpoint>);
static_assert(supports_incremental_snapshot<lib_sink, replicant::lib_owned_checkpoint<progress_keeping_store>>);
static_assert(!supports_incremental_snapshot<lib_sink, replicant::lib_owned_checkpoint<plain_store>>);
static_assert(replicant::progress_store<progress_keeping_store>);
static_assert(!replicant::progress_store<plain_store>);

}  // namespace

BOOST_AUTO_TEST_SUITE(start_mode)

// The incremental snapshot's needs of a sink and a store are decided at compile time (above); a
// start mode's settings at start (unit/pipeline/options.cpp).
BOOST_AUTO_TEST_CASE(the_snapshot_modes_are_told_apart_from_the_others) {
  BOOST_TEST(replicant::takes_snapshot(replicant::start::point_in_time_snapshot{}));
  BOOST_TEST(replicant::takes_snapshot(replicant::start::incremental_snapshot{}));
  BOOST_TEST(!replicant::takes_snapshot(replicant::start::go_forward{}));
  BOOST_TEST(!replicant::takes_snapshot(replicant::start::resume_only{}));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // snapshot_mode_tests
