// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#include <replicant/concepts.hpp>

#define BOOST_TEST_MODULE replicant.unit.concepts
#include <boost/test/unit_test.hpp>

#include "archetypes/sink.hpp"

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

BOOST_AUTO_TEST_SUITE(sink_concept)

BOOST_AUTO_TEST_CASE(archetype_is_a_sink_and_behaves) {
  archetypes::sink s{0};
  const auto cp = s.checkpoint();
  BOOST_TEST_REQUIRE(cp.has_value());
  BOOST_TEST(!cp->has_value());
  BOOST_TEST(replicant::detail::check_sink<archetypes::sink>());
}

BOOST_AUTO_TEST_SUITE_END()
