// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_TRANSACTION_COLLECTOR_HPP
#define REPLICANT_TESTS_SUPPORT_TRANSACTION_COLLECTOR_HPP

/// @file
/// An assembler delivery target for unit tests that build transactions from hand-made pgoutput
/// messages: it keeps every committed transaction and lets everything else pass.

#include <replicant/assembler.hpp>
#include <replicant/result.hpp>
#include <replicant/schema_change.hpp>
#include <replicant/transaction.hpp>

#include <vector>

namespace replicant::test {

/// Keeps every committed transaction the assembler delivers; accepts every other event.
struct transaction_collector {
  /// The transactions, in delivery order.
  std::vector<transaction> transactions;

  auto operator()(transaction&& t) -> result<void> {
    transactions.push_back(std::move(t));
    return {};
  }
  auto operator()(const logical_message&) -> result<void> { return {}; }
  auto operator()(const schema_change&) -> result<void> { return {}; }
  auto operator()(const empty_commit&) -> result<void> { return {}; }
  auto operator()(const prepared_event&) -> result<void> { return {}; }
  auto operator()(const rollback_prepared_event&) -> result<void> { return {}; }
  auto operator()(const stream_abort_event&) -> result<void> { return {}; }
};

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_TRANSACTION_COLLECTOR_HPP
