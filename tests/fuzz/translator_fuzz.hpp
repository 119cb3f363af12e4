// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_FUZZ_TRANSLATOR_FUZZ_HPP
#define REPLICANT_TESTS_FUZZ_TRANSLATOR_FUZZ_HPP

// What the fuzzers of the translating decoders (wal2json, pglogical) share: the assembler's
// delivery target, which reads everything delivered and checks what a translation may produce.

#include "fuzz_common.hpp"

#include <replicant/assembler/assembler.hpp>
#include <replicant/model/schema_change.hpp>
#include <replicant/model/transaction.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace replicant::fuzz {

// Reads every change, value and message of @p t into a digest.
inline auto touch_translated_transaction(const transaction& t) -> std::uint64_t {
  std::uint64_t h = t.xid();
  for (const change& c : t.changes()) {
    const relation_info& relation = c.relation();
    mix(h, relation.table);
    if (c.op() == change_op::truncate) continue;
    if (!c.record().empty()) mix(h, touch_row(relation, c.record().raw()));
    if (!c.old().empty()) mix(h, touch_row(relation, c.old().raw()));
    for (const std::string_view name : c.unchanged()) mix(h, name);
  }
  for (const logical_message& m : t.messages()) {
    mix(h, m.prefix);
    mix(h, m.content);
  }
  return h;
}

// The assembler's delivery target for a translated stream. The plugins have no two-phase or
// streamed transactions, so a translation must never produce their events.
struct translated_handler {
  std::string_view plugin;  // named in a failure

  auto operator()(transaction&& t) -> result<void> {
    digest_sink = touch_translated_transaction(t);
    return {};
  }
  auto operator()(const logical_message& m) -> result<void> {
    REPLICANT_FUZZ_CHECK(!m.transactional);
    std::uint64_t h = 0;
    mix(h, m.prefix);
    mix(h, m.content);
    digest_sink = h;
    return {};
  }
  auto operator()(const schema_change& c) -> result<void> {
    REPLICANT_FUZZ_CHECK(c.kind != schema_change_kind::none);
    digest_sink = c.changes.size();
    return {};
  }
  auto operator()(const empty_commit& e) -> result<void> {
    digest_sink = e.end_lsn.value();
    return {};
  }
  auto operator()(const prepared_event&) -> result<void> { impossible("a prepared transaction"); }
  auto operator()(const rollback_prepared_event&) -> result<void> { impossible("a rolled back prepared transaction"); }
  auto operator()(const stream_abort_event&) -> result<void> { impossible("a stream abort"); }

 private:
  [[noreturn]] auto impossible(std::string_view what) const -> void {
    const std::string message = std::string{what} + " from " + std::string{plugin};
    property_failed(message.c_str(), __FILE__, __LINE__);
  }
};

}  // namespace replicant::fuzz

#endif  // REPLICANT_TESTS_FUZZ_TRANSLATOR_FUZZ_HPP
