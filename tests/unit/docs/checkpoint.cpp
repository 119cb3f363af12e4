// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The exemplars of docs/checkpoint/*.md, compiled here and quoted there verbatim: each is a
// declaration-only sink (or store) that models its policy's concept and passes the pipeline's sink
// checklist for that policy.
#include <replicant/pipeline/sink_for.hpp>
#include <replicant/sink/concepts.hpp>

#include <boost/test/unit_test.hpp>

#include <replicant/checkpoint/store.hpp>
#include <replicant/model/transaction.hpp>

#include "unit/docs/support.hpp"

#include <optional>
#include <span>

BOOST_AUTO_TEST_SUITE(docs_checkpoint_tests)

//[checkpoint_sink_owned
struct my_sink {
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>>;
  auto handle_transaction(const replicant::transaction& txn) -> replicant::result<replicant::lsn>;
};
static_assert(replicant::sink<my_sink>);
//]

//[checkpoint_sink_owned_batches
struct my_batch_sink {
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>>;
  auto handle_batch(std::span<const replicant::transaction> txns) -> replicant::result<replicant::lsn>;
};
static_assert(replicant::batch_sink<my_batch_sink>);
//]

//[checkpoint_lib_owned
struct my_file_sink {
  auto handle_transaction(const replicant::transaction& txn) -> replicant::result<void>;
};
static_assert(replicant::lib_mode_sink<my_file_sink>);

struct my_store {
  auto read(const replicant::slot_name& slot) -> replicant::result<std::optional<replicant::lsn>>;
  auto write(const replicant::slot_name& slot, replicant::lsn at) -> replicant::result<void>;
};
static_assert(replicant::checkpoint_store<my_store>);
//]

namespace d = replicant::detail;
static_assert(d::check_sink<my_sink, replicant::sink_owned_checkpoint>());
static_assert(d::check_sink<my_batch_sink, replicant::sink_owned_batches>());
static_assert(d::check_sink<my_file_sink, replicant::lib_owned_checkpoint<my_store>>());
// Each exemplar fits its own policy only: the concepts tell the three apart.
static_assert(!replicant::batch_sink<my_sink> && !replicant::lib_mode_sink<my_sink>);
static_assert(!replicant::sink<my_batch_sink> && !replicant::lib_mode_sink<my_batch_sink>);
static_assert(!replicant::sink<my_file_sink> && !replicant::batch_sink<my_file_sink>);
// A store without progress does not serve the incremental snapshot under a library-owned checkpoint.
static_assert(!replicant::progress_store<my_store>);

BOOST_AUTO_TEST_SUITE(docs_checkpoint)

BOOST_AUTO_TEST_CASE(each_policy_page_quotes_its_compiled_exemplar) {
  const auto source = docs_support::read_text(__FILE__);
  docs_support::require_quoted(source, "checkpoint_sink_owned", "docs/checkpoint/sink_owned.md");
  docs_support::require_quoted(source, "checkpoint_sink_owned_batches", "docs/checkpoint/sink_owned_batches.md");
  docs_support::require_quoted(source, "checkpoint_lib_owned", "docs/checkpoint/lib_owned.md");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // docs_checkpoint_tests
