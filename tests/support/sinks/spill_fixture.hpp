// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_SINKS_SPILL_FIXTURE_HPP
#define REPLICANT_TESTS_SUPPORT_SINKS_SPILL_FIXTURE_HPP

/// @file
/// What the spill tests share: a table of hand-made pgoutput rows (`orders`: an int key and a
/// 100-byte label, so that a few dozen rows outgrow a small threshold), a target that reads each
/// delivered transaction's keys while it is delivered, a streamed transaction whose subtransaction
/// is rolled back, and what the pipeline does with a spill policy at the start of a session.

#include "support/sinks/transaction_collector.hpp"
#include "support/wire/pgoutput_builder.hpp"

#include <replicant/assembler/assembler.hpp>
#include <replicant/model/transaction.hpp>
#include <replicant/spill/policy.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace replicant::test {

/// The `orders` table's relation id.
inline constexpr std::uint32_t orders_oid = 16384;

/// The Relation message of `orders (id int4 key, label text)`, in transaction @p xid if streamed.
inline auto orders_relation(std::optional<std::uint32_t> xid = std::nullopt) -> bytes {
  return relation(xid, orders_oid, "public", "orders", 'd', {{"id", 23, -1, true}, {"label", 25, -1, false}});
}

/// An Insert of row @p id into `orders` (a 100-byte label), in transaction @p xid if streamed.
inline auto orders_insert(std::optional<std::uint32_t> xid, int id) -> bytes {
  return insert(xid, orders_oid, {col::text(std::to_string(id)), col::text(std::string(100, 'x'))});
}

/// Reads each delivered transaction's keys while it is delivered, as a sink must read a spilled
/// one; a spilled part that cannot be read back ends the iteration, and its error is kept in
/// read_error.
struct id_reader : other_events_accepted {
  using other_events_accepted::operator();

  std::vector<std::vector<int>> ids;  // per transaction
  std::vector<std::uint64_t> spilled;
  std::optional<std::error_code> read_error;

  auto operator()(transaction&& t) -> result<void> {
    std::vector<int> seen;
    for (const auto& c : t.changes()) {
      auto v = c.record().value("id");
      seen.push_back(v && !v->is_null() ? static_cast<int>(v->get<std::int64_t>()) : -1);
    }
    if (const auto ec = t.read_error()) read_error = ec;
    ids.push_back(std::move(seen));
    spilled.push_back(t.spilled_bytes());
    return {};
  }
};

/// first, first + 1, ..., last.
inline auto numbers(int first, int last) -> std::vector<int> {
  std::vector<int> out;
  for (int i = first; i <= last; ++i) out.push_back(i);
  return out;
}

/// Transaction 10 streamed (protocol 2) with rows 1-100, and its subtransaction 11 with rows
/// 101-200: enough to spill under a small threshold.
inline auto streamed_with_a_subtransaction() -> std::vector<bytes> {
  std::vector<bytes> in{stream_start(10, true), orders_relation(10)};
  for (int i = 1; i <= 100; ++i) in.push_back(orders_insert(10, i));
  for (int i = 101; i <= 200; ++i) in.push_back(orders_insert(11, i));
  in.push_back(stream_stop());
  return in;
}

/// Then subtransaction 11 rolled back, rows 201-210 added to 10, and 10 committed.
inline auto its_subtransaction_rolled_back_then_committed() -> std::vector<bytes> {
  std::vector<bytes> in{stream_abort(10, 11), stream_start(10, false)};
  for (int i = 201; i <= 210; ++i) in.push_back(orders_insert(10, i));
  in.push_back(stream_stop());
  in.push_back(stream_commit(10, lsn{0x400}, lsn{0x420}, 0));
  return in;
}

/// The keys that transaction delivers: 1-100, then 201-210.
inline auto keys_after_the_rollback() -> std::vector<int> {
  auto keys = numbers(1, 100);
  const auto tail = numbers(201, 210);
  keys.insert(keys.end(), tail.begin(), tail.end());
  return keys;
}

/// What the pipeline does with a spill policy at the start of a session: prepare(), then spill
/// into parts from open() under its limits, if it has any.
template <class Policy>
auto start_spilling(assembler& a, Policy& policy, const spill_context& ctx) -> result<void> {
  if (auto ready = policy.prepare(ctx); !ready) return ready;
  if (const auto limits = std::as_const(policy).limits(ctx)) {
    a.enable_spill(*limits, [&policy, ctx] { return policy.open(ctx); });
  }
  return {};
}

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_SINKS_SPILL_FIXTURE_HPP
