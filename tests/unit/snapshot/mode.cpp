// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The snapshot start mode of pipeline_options: its enum and the boolean spelling it keeps, and the
// start-time checks of the incremental mode's settings.
#include <replicant/pipeline/options.hpp>

#define BOOST_TEST_MODULE replicant.unit.snapshot.mode
#include <boost/test/unit_test.hpp>

#include <replicant/pipeline/sink_for.hpp>

#include <optional>
#include <string>
#include <type_traits>

using replicant::halt_reason;
using replicant::snapshot_mode;

namespace {

auto options() -> replicant::pipeline_options {
  replicant::pipeline_options o;
  o.conninfo = "dbname=x";
  o.slot = "s";
  o.publications = {"p"};
  return o;
}

// A bool converts; an integer does not (it would silently pick a mode).
static_assert(std::is_convertible_v<bool, replicant::snapshot_setting>);
static_assert(std::is_convertible_v<snapshot_mode, replicant::snapshot_setting>);
static_assert(!std::is_convertible_v<int, replicant::snapshot_setting>);
static_assert(!std::is_convertible_v<replicant::snapshot_setting, bool>);  // explicit: `if (o.snapshot)` only

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

BOOST_AUTO_TEST_SUITE(snapshot_setting)

BOOST_AUTO_TEST_CASE(keeps_the_boolean_spelling) {
  auto o = options();
  BOOST_TEST((o.snapshot.mode() == snapshot_mode::none));
  BOOST_TEST(!o.snapshot);
  o.snapshot = true;
  BOOST_TEST((o.snapshot.mode() == snapshot_mode::point_in_time));
  BOOST_TEST(static_cast<bool>(o.snapshot));
  o.snapshot = snapshot_mode::incremental;
  BOOST_TEST((o.snapshot == snapshot_mode::incremental));
  o.snapshot = false;
  BOOST_TEST((o.snapshot == snapshot_mode::none));
}

BOOST_AUTO_TEST_CASE(validates_the_incremental_settings) {
  auto o = options();
  o.snapshot = snapshot_mode::incremental;
  BOOST_TEST(replicant::validate(o).has_value());
  o.go_forward_only = true;
  BOOST_TEST((replicant::validate(o).error().reason == halt_reason::conflicting_start_mode));
  o.go_forward_only = false;
  for (const auto broken : {+[](replicant::pipeline_options& p) { p.snapshot_chunk_rows = 0; },
                            +[](replicant::pipeline_options& p) { p.snapshot_max_pending_chunks = 0; },
                            +[](replicant::pipeline_options& p) { p.binary = true; }}) {
    auto b = o;
    broken(b);
    BOOST_TEST((replicant::validate(b).error().reason == halt_reason::config_invalid));
  }
  // The point-in-time mode ignores the chunk settings, and may stream binary values.
  o.snapshot = snapshot_mode::point_in_time;
  o.snapshot_chunk_rows = 0;
  o.binary = true;
  BOOST_TEST(replicant::validate(o).has_value());
  o.snapshot_batch_rows = 0;
  BOOST_TEST((replicant::validate(o).error().reason == halt_reason::config_invalid));
}

BOOST_AUTO_TEST_SUITE_END()
