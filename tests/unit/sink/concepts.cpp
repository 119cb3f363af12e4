// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#include <replicant/sink/concepts.hpp>

#include <boost/test/unit_test.hpp>

#include <replicant/checkpoint/lib_owned.hpp>
#include <replicant/checkpoint/sink_owned_batches.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/pipeline/sink_for.hpp>

#include "archetypes/sink.hpp"

#include <span>

BOOST_AUTO_TEST_SUITE(sink_concepts_tests)

using replicant::lsn;
using replicant::result;

namespace {

struct no_checkpoint {
  auto handle_transaction(const replicant::transaction&) -> result<lsn>;
};
struct no_handle_transaction {
  auto checkpoint() -> result<std::optional<lsn>>;
};
struct wrong_return_type {  // must return result<lsn>: a sink that cannot fail is not a sink
  auto checkpoint() -> result<std::optional<lsn>>;
  auto handle_transaction(const replicant::transaction&) -> lsn;
};
struct const_only {  // callable on a const sink is fine too: the pipeline holds a mutable one
  auto checkpoint() const -> result<std::optional<lsn>>;
  auto handle_transaction(const replicant::transaction&) const -> result<lsn>;
};
struct takes_by_mutable_ref {  // the pipeline passes a const transaction&
  auto checkpoint() -> result<std::optional<lsn>>;
  auto handle_transaction(replicant::transaction&) -> result<lsn>;
};
struct batcher {
  auto checkpoint() -> result<std::optional<lsn>>;
  auto handle_batch(std::span<const replicant::transaction>) -> result<lsn>;
};
struct batcher_and_more : batcher {  // a per-transaction member too: allowed, not called
  auto handle_transaction(const replicant::transaction&) -> result<lsn>;
};
struct file_writer {  // library-owned checkpoint: nothing to report back
  auto handle_transaction(const replicant::transaction&) -> result<void>;
};
struct store {
  auto read(const replicant::slot_name&) -> result<std::optional<lsn>>;
  auto write(const replicant::slot_name&, lsn) -> result<void>;
};
struct read_only_store {
  auto read(const replicant::slot_name&) -> result<std::optional<lsn>>;
};
// Sinks that list their hooks: truthfully, with a misspelled member, with an unlisted member.
struct listing_sink : archetypes::sink {
  static constexpr replicant::hook hooks = replicant::hook::schema_change | replicant::hook::message;
  auto handle_schema_change(const replicant::schema_change&) -> result<void>;
  auto handle_message(const replicant::logical_message&, const replicant::message_context&) -> result<void>;
};
struct misspelling_sink : archetypes::sink {
  static constexpr replicant::hook hooks = replicant::hook::schema_change;
  auto handle_schema_chnage(const replicant::schema_change&) -> result<void>;
};
struct unlisting_sink : archetypes::sink {
  static constexpr replicant::hook hooks = replicant::hook::none;
  auto handle_schema_change(const replicant::schema_change&) -> result<void>;
};

}  // namespace

static_assert(replicant::sink<archetypes::sink>);
static_assert(replicant::detail::check_sink<archetypes::sink>());
static_assert(replicant::sink<const_only>);
static_assert(!replicant::sink<no_checkpoint>);
static_assert(!replicant::sink<no_handle_transaction>);
static_assert(!replicant::sink<wrong_return_type>);
static_assert(!replicant::sink<takes_by_mutable_ref>);
static_assert(!replicant::sink<int>);
static_assert(replicant::detail::has_checkpoint<no_handle_transaction>);
static_assert(!replicant::detail::has_handle_transaction<no_handle_transaction>);
static_assert(replicant::detail::has_handle_transaction<no_checkpoint>);
static_assert(!replicant::detail::has_checkpoint<no_checkpoint>);

// One concept per checkpoint policy, and a checklist that accepts exactly those.
static_assert(replicant::batch_sink<batcher>);
static_assert(replicant::batch_sink<batcher_and_more>);
static_assert(!replicant::batch_sink<archetypes::sink>);
static_assert(replicant::detail::check_sink<batcher, replicant::sink_owned_batches>());
static_assert(replicant::lib_mode_sink<file_writer>);
static_assert(replicant::lib_mode_sink<no_checkpoint>);      // result<lsn> is accepted too
static_assert(!replicant::lib_mode_sink<archetypes::sink>);  // it declares checkpoint()
static_assert(!replicant::lib_mode_sink<batcher>);
static_assert(replicant::detail::check_sink<file_writer, replicant::lib_owned_checkpoint<store>>());
static_assert(replicant::checkpoint_store<store>);
static_assert(!replicant::checkpoint_store<read_only_store>);
static_assert(!replicant::checkpoint_store<int>);

// The whole combination, as a user checks it without building a pipeline: the sink fits exactly
// the policies whose requirements it meets.
using replicant::pgoutput_decoder;
static_assert(replicant::sink_for<pgoutput_decoder, replicant::sink_owned_checkpoint, archetypes::sink>);
static_assert(!replicant::sink_for<pgoutput_decoder, replicant::sink_owned_batches, archetypes::sink>);
static_assert(!replicant::sink_for<pgoutput_decoder, replicant::lib_owned_checkpoint<store>, archetypes::sink>);
static_assert(replicant::sink_for<pgoutput_decoder, replicant::sink_owned_batches, batcher>);
static_assert(replicant::sink_for<pgoutput_decoder, replicant::lib_owned_checkpoint<store>, file_writer>);
static_assert(!replicant::sink_for<pgoutput_decoder, replicant::sink_owned_checkpoint, file_writer>);
// A list of hooks must name exactly the hook members (the compile-fail tests give the sentences).
static_assert(replicant::sink_for<pgoutput_decoder, replicant::sink_owned_checkpoint, listing_sink>);
static_assert(!replicant::sink_for<pgoutput_decoder, replicant::sink_owned_checkpoint, misspelling_sink>);
static_assert(!replicant::sink_for<pgoutput_decoder, replicant::sink_owned_checkpoint, unlisting_sink>);
static_assert(replicant::contains(replicant::hook::schema_change | replicant::hook::message, replicant::hook::message));
static_assert(!replicant::contains(replicant::hook::schema_change, replicant::hook::message));
// Every library model is a checkpoint policy for the sinks it accepts.
static_assert(replicant::checkpoint_policy_for<replicant::sink_owned_checkpoint, archetypes::sink>);
static_assert(replicant::checkpoint_policy_for<replicant::sink_owned_batches, batcher>);
static_assert(replicant::checkpoint_policy_for<replicant::lib_owned_checkpoint<store>, file_writer>);
// A type without a delivery is no checkpoint policy at all.
static_assert(!replicant::checkpoint_policy_for<store, archetypes::sink>);
static_assert(!replicant::checkpoint_policy_for<int, archetypes::sink>);

BOOST_AUTO_TEST_SUITE(sink_concept)

BOOST_AUTO_TEST_CASE(archetype_is_a_sink_and_behaves) {
  archetypes::sink s{0};
  const auto cp = s.checkpoint();
  BOOST_TEST_REQUIRE(cp.has_value());
  BOOST_TEST(!cp->has_value());
  BOOST_TEST(replicant::detail::check_sink<archetypes::sink>());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // sink_concepts_tests
