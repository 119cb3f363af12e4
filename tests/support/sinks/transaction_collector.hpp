// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_SINKS_TRANSACTION_COLLECTOR_HPP
#define REPLICANT_TESTS_SUPPORT_SINKS_TRANSACTION_COLLECTOR_HPP

/// @file
/// An assembler delivery target for unit tests that build transactions from hand-made pgoutput
/// messages: it keeps every committed transaction and lets everything else pass; and the messages
/// pushed through an assembler into a target, or into the transactions they commit.

#include <replicant/assembler/assembler.hpp>
#include <replicant/core/result.hpp>
#include <replicant/decoder/pgoutput_protocol.hpp>
#include <replicant/model/schema_change.hpp>
#include <replicant/model/transaction.hpp>

#include <cstddef>
#include <utility>
#include <vector>

namespace replicant::test {

/// Every event of the assembler but a committed transaction, accepted and ignored: the base of a
/// delivery target that only wants the transactions (`using other_events_accepted::operator();`).
struct other_events_accepted {
  auto operator()(const logical_message&) -> result<void> { return {}; }
  auto operator()(const schema_change&) -> result<void> { return {}; }
  auto operator()(const empty_commit&) -> result<void> { return {}; }
  auto operator()(const prepared_event&) -> result<void> { return {}; }
  auto operator()(const rollback_prepared_event&) -> result<void> { return {}; }
  auto operator()(const stream_abort_event&) -> result<void> { return {}; }
};

/// Keeps every committed transaction the assembler delivers; accepts every other event.
struct transaction_collector : other_events_accepted {
  using other_events_accepted::operator();

  /// The transactions, in delivery order.
  std::vector<transaction> transactions;

  auto operator()(transaction&& t) -> result<void> {
    transactions.push_back(std::move(t));
    return {};
  }
};

/// Hands every committed transaction to @p F while it is delivered (its result is the delivery's);
/// accepts every other event.
template <class F>
struct transaction_visitor : other_events_accepted {
  using other_events_accepted::operator();

  explicit transaction_visitor(F f) : on_transaction(std::move(f)) {}
  auto operator()(transaction&& t) -> result<void> { return on_transaction(std::move(t)); }

  F on_transaction;
};

/// Pushes @p messages (whole pgoutput messages, as support/wire/pgoutput_builder.hpp makes them)
/// through @p a into @p target, in order; the first error.
template <class Target>
auto feed(assembler& a, Target& target, const std::vector<std::vector<std::byte>>& messages) -> result<void> {
  for (const auto& m : messages) {
    if (auto pushed = a.push(m, target); !pushed) return pushed;
  }
  return {};
}

/// The transactions @p messages commit, pushed in order through a fresh assembler of @p protocol
/// (messages that leave a transaction open commit nothing of it); the first error a push returned.
inline auto committed_transactions(const std::vector<std::vector<std::byte>>& messages, pgoutput_protocol protocol = {})
    -> result<std::vector<transaction>> {
  assembler a{protocol};
  transaction_collector c;
  if (auto fed = feed(a, c, messages); !fed) return unexpected(fed.error());
  return std::move(c.transactions);
}

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_SINKS_TRANSACTION_COLLECTOR_HPP
