// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// docs/sink_hooks.md, the optional sink contracts: each exemplar compiles (the snippets below,
// quoted there verbatim), models the atoms the pipeline checks, and passes the pipeline's sink and
// decoder checklists; the start-time rules the page states hold without a server.
#include <replicant/sink/concepts.hpp>

#include <boost/test/unit_test.hpp>

#include <replicant/pipeline.hpp>

#include "unit/docs/support.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

// The exemplars stand at global scope, as a user's code does (one specialises a library template,
// which only the global namespace may do); the file's suite, after them, checks them.

// "my_sink in the exemplars is any sink that models the checkpoint policy's concept (here a
// replicant::sink whose member stored is its checkpoint)".
struct my_sink {
  std::optional<replicant::lsn> stored;
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return stored; }
  auto handle_transaction(const replicant::transaction& txn) -> replicant::result<replicant::lsn> {
    stored = txn.commit_lsn();
    return txn.commit_lsn();
  }
};

//[hooks_connect
struct ledger_sink : my_sink {
  static constexpr replicant::sink_kind kind = replicant::sink_kind::append_log;
  std::string expected_system;  // the cluster this ledger was filled from; empty: not known yet

  auto handle_session_identity(const replicant::session_identity& id, const replicant::session_context& /*ctx*/)
      -> replicant::result<void> {
    if (!expected_system.empty() && id.system_identifier != expected_system) {
      return replicant::fail(replicant::errc::sink_failed);  // another cluster: halts session_identity_rejected
    }
    return {};
  }

  auto handle_slot_origin(replicant::lsn origin, const replicant::slot_origin_context& ctx) -> replicant::result<void> {
    // The slot was moved past the last entry by someone else: entries in between would be missing.
    if (ctx.reused && stored && origin > *stored) return replicant::fail(replicant::errc::sink_failed);
    return {};
  }
};
//]

//[hooks_schema
struct migrating_sink : my_sink {
  std::optional<replicant::lsn> migrated_at;  // where the target's shape last changed

  auto handle_schema_change(const replicant::schema_change& change, const replicant::schema_change_context& ctx)
      -> replicant::result<void> {
    for (const replicant::column_change& c : change.changes) {
      // A dropped column stays in the target and is NULL from now on; a widened one is widened there
      // (not shown); anything else needs a migration first.
      if (c.kind != replicant::column_change_kind::dropped && c.kind != replicant::column_change_kind::type_widened) {
        return replicant::fail(replicant::errc::sink_failed);
      }
    }
    migrated_at = ctx.at;
    return {};
  }
};
//]

//[hooks_message
struct audit_sink : my_sink {
  std::map<replicant::lsn, std::string> notes;  // keyed by LSN: a message delivered again overwrites itself

  auto handle_message(const replicant::logical_message& m, const replicant::message_context& ctx)
      -> replicant::result<void> {
    if (m.prefix != "audit") return {};
    notes[ctx.at] = std::string{reinterpret_cast<const char*>(m.content.data()), m.content.size()};
    return {};
  }
};
//]

//[hooks_prepare
struct two_phase_sink : my_sink {
  std::vector<std::string> in_doubt;  // prepared, not yet committed or rolled back

  auto handle_prepare(const replicant::prepared_event& e) -> replicant::result<void> {
    in_doubt.emplace_back(e.gid);
    return {};
  }
};
//]

//[hooks_snapshot
struct snapshot_sink : my_sink {
  std::map<std::string, std::uint64_t> rows;  // per table; a real sink stores the rows themselves
  std::optional<std::string> progress;        // in the same transaction as the rows

  auto handle_snapshot(const replicant::snapshot_batch& batch, const replicant::snapshot_context& ctx)
      -> replicant::result<void> {
    auto& count = rows[std::string{batch.table().name}];
    if (ctx.first_for_table) count = 0;  // clear the table
    count += batch.size();
    if (!ctx.progress.empty()) progress = std::string{ctx.progress};
    return {};
  }
  auto handle_snapshot_complete(replicant::lsn at) -> replicant::result<void> {
    stored = at;  // point-in-time: the checkpoint becomes the consistent point
    return {};
  }
  auto snapshot_progress() -> replicant::result<std::optional<std::string>> { return progress; }
};
template <>
inline constexpr bool replicant::enable_incremental_snapshot<snapshot_sink> = true;
//]

BOOST_AUTO_TEST_SUITE(docs_sink_hooks_tests)

namespace d = replicant::detail;

// Each exemplar models the atoms of its contract, through inheritance from my_sink too ("inherited
// members count"), and passes the sink checklist the pipeline runs.
static_assert(d::has_handle_session_identity<ledger_sink> && d::has_handle_slot_origin<ledger_sink>);
static_assert(d::kind_of<ledger_sink>() == replicant::sink_kind::append_log);
static_assert(d::kind_of<my_sink>() == replicant::sink_kind::state_mirror);
static_assert(d::has_handle_schema_change<migrating_sink>);
static_assert(d::has_handle_schema_change_with_context<migrating_sink>);
static_assert(d::has_handle_message<audit_sink>);
static_assert(d::has_handle_prepare<two_phase_sink>);
static_assert(d::has_handle_snapshot<snapshot_sink> && d::has_handle_snapshot_complete<snapshot_sink> &&
              d::has_snapshot_progress<snapshot_sink>);
static_assert(d::supports_incremental_snapshot<snapshot_sink, replicant::sink_owned_checkpoint>);
static_assert(!d::supports_incremental_snapshot<my_sink, replicant::sink_owned_checkpoint>);
static_assert(replicant::sink<ledger_sink> && replicant::sink<migrating_sink> && replicant::sink<audit_sink> &&
              replicant::sink<two_phase_sink> && replicant::sink<snapshot_sink>);
static_assert(d::check_sink<ledger_sink>() && d::check_sink<migrating_sink>() && d::check_sink<audit_sink>() &&
              d::check_sink<two_phase_sink>() && d::check_sink<snapshot_sink>());
// The hooks that need a capability are allowed on pgoutput's pipeline.
static_assert(d::check_decoder_serves<replicant::pgoutput_decoder, audit_sink>() &&
              d::check_decoder_serves<replicant::pgoutput_decoder, two_phase_sink>() &&
              d::check_decoder_serves<replicant::pgoutput_decoder, snapshot_sink>());

namespace {

template <class Sink>
using pipeline_of = replicant::pgoutput_pipeline<Sink>;

auto options() -> replicant::pipeline_options {
  replicant::pipeline_options o;
  o.conninfo = "host=/nonexistent-socket-dir dbname=shop connect_timeout=1";
  o.slot = "shop_hooks";
  o.max_command_retries = 0;
  return o;
}

template <class Sink>
auto run_once(Sink& sink, const replicant::pipeline_options& o,
              replicant::pgoutput_options pg = {.publications = {"shop_pub"}}) -> replicant::halt_reason {
  pipeline_of<Sink> p{sink, std::move(pg), o};
  std::error_code ec;
  p.run(ec);
  // run(ec) says that it stopped, the halt says why (no reason when it did not halt).
  return ec == replicant::errc::halted && p.last_halt() ? p.last_halt()->reason : replicant::halt_reason{};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(docs_sink_hooks)

BOOST_AUTO_TEST_CASE(the_page_quotes_its_compiled_exemplars) {
  docs_support::require_quoted(docs_support::read_text(__FILE__), "docs/sink_hooks.md");
}

BOOST_AUTO_TEST_CASE(messages_without_the_hook_are_refused_at_start) {
  auto o = options();
  o.start = replicant::start::go_forward{};
  my_sink plain;
  BOOST_TEST(run_once(plain, o, {.publications = {"shop_pub"}, .messages = true}) ==
             replicant::halt_reason::messages_unsupported);
}

BOOST_AUTO_TEST_CASE(a_snapshot_mode_without_its_members_is_refused_at_start) {
  auto o = options();
  o.start = replicant::start::point_in_time_snapshot{};
  my_sink plain;
  BOOST_TEST(run_once(plain, o) == replicant::halt_reason::snapshot_unsupported);
  o.start = replicant::start::incremental_snapshot{};
  BOOST_TEST(run_once(plain, o) == replicant::halt_reason::snapshot_unsupported);
  migrating_sink other;
  BOOST_TEST(run_once(other, o) == replicant::halt_reason::snapshot_unsupported);
}

BOOST_AUTO_TEST_CASE(the_hooks_table_names_every_optional_member) {
  const auto page = docs_support::read_repository_file("docs/sink_hooks.md");
  for (const auto* expression :
       {"s.handle_session_identity(id, ctx)", "s.handle_slot_origin(origin, ctx)", "S::kind",
        "s.handle_schema_change(change, ctx)", "s.handle_message(m, ctx)", "s.handle_prepare(e)",
        "s.handle_snapshot(batch, ctx)", "s.handle_snapshot_complete(at)", "s.snapshot_progress()",
        "replicant::enable_incremental_snapshot<S>"}) {
    BOOST_TEST(docs_support::rows_naming(page, expression).size() == 1U, expression);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // docs_sink_hooks_tests
