// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Fuzzes replicant::assembler with sequences of pgoutput messages: ordinary, streamed and two-phase
// transactions, subtransaction aborts, schema changes, reconnects (reset) and failing handlers.
//
// Input: byte 0 selects the session (see `session` below); then chunks (fuzz::chunk_reader), each
// one pgoutput message, pushed from a heap buffer of its own that is overwritten and freed right
// after the push, so that AddressSanitizer reports any view the assembler kept into a payload
// instead of copying it. A chunk of length 0 is a reconnect: reset().
//
// Properties, besides the sanitizers':
// - errors are value-free (fuzz::check_error); after an error, reset() leaves the assembler idle
//   and holding nothing, as it does at the end of every input;
// - every delivered transaction can be read whole: each change's rows have one field per column of
//   its relation and cast as field::value documents, rows map onto structs (change::as), and
//   messages and origin are readable, all after the payloads they came from are gone, and again
//   once the assembler itself is gone;
// - the byte accounting is consistent (the largest open transaction is part of the resident bytes).
#include <replicant/assembler/assembler.hpp>

#include "fuzz_common.hpp"
#include "support/wire/pgoutput_builder.hpp"

#include <boost/hana/define_struct.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/members.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using namespace replicant;
namespace pg = replicant::test;

// Byte 0 of the input:
//   bits 0-2  the protocol/streaming configuration (fuzz::protocols)
//   bit 3     describe the orders and kinds relations before the first chunk
//   bit 4     the transaction handler fails every third transaction (the caller then resets)
//   bit 5     delivered transactions are given back with recycle(), so their memory is reused
struct session {
  std::size_t protocol;
  bool preload;
  bool failing_sink;
  bool recycle;

  static auto from(std::uint8_t b) -> session { return {b & 7U, (b & 8U) != 0, (b & 16U) != 0, (b & 32U) != 0}; }
};

inline constexpr std::uint32_t kinds_relation_oid = 16'386;

// Structs that rows are mapped onto, with string views (which must not outlive the transaction,
// and must not dangle before that either), optional members for NULLs, and arrays as vectors.
struct order_row {
  BOOST_HANA_DEFINE_STRUCT(order_row, (std::optional<std::int32_t>, id), (std::optional<std::string_view>, customer),
                           (std::optional<std::string_view>, amount));
};
// Mapping stops at the first member that does not fit, so the members most likely to refuse (views
// of values that replicant renders itself) come last, after the ones that always map.
struct kinds_row {
  BOOST_HANA_DEFINE_STRUCT(kinds_row, (std::optional<std::chrono::sys_time<std::chrono::microseconds>>, seen),
                           (std::optional<bytea>, blob), (std::optional<value>, doc), (std::optional<uuid>, ref),
                           (std::optional<double>, ratio),
                           (std::optional<std::vector<std::optional<std::string>>>, tags),
                           (std::optional<std::vector<std::int64_t>>, counts), (std::optional<std::string>, span),
                           (std::optional<std::string_view>, price),
                           (std::optional<std::vector<std::optional<std::string_view>>>, tags_again));
};

auto preload_messages() -> std::vector<pg::bytes> {
  return {
      pg::relation(std::nullopt, fuzz::orders_relation_oid, "public", "orders", 'd',
                   {{"id", pg_type::int4, -1, true},
                    {"customer", pg_type::text, -1, false},
                    {"amount", pg_type::numeric, 655'366, false}}),
      pg::relation(std::nullopt, kinds_relation_oid, "public", "kinds", 'f',
                   {{"price", pg_type::money, -1, true},
                    {"span", pg_type::interval, -1, false},
                    {"tags", pg_type::text_array, -1, false},
                    {"seen", pg_type::timestamptz, -1, false},
                    {"blob", pg_type::bytea, -1, false},
                    {"doc", pg_type::jsonb, -1, false},
                    {"ref", pg_type::uuid, -1, false},
                    {"ratio", pg_type::float8, -1, false},
                    {"counts", pg_type::int8_array, -1, false},
                    {"tags_again", pg_type::text_array, -1, false}}),
  };
}

template <class Row>
auto touch_mapped(const change& c) -> std::uint64_t {
  std::uint64_t h = 0;
  const auto mapped = c.as<Row>();
  if (!mapped) {
    fuzz::check_error(mapped.error());
    return h;
  }
  boost::hana::for_each(boost::hana::members(*mapped), [&h](const auto& member) {
    using M = std::decay_t<decltype(member)>;
    if (!member) return;
    if constexpr (std::is_same_v<M, std::optional<std::string_view>>) {
      fuzz::mix(h, *member);
    } else if constexpr (std::is_same_v<M, std::optional<std::string>>) {
      fuzz::mix(h, *member);
    } else if constexpr (std::is_same_v<M, std::optional<std::vector<std::optional<std::string>>>> ||
                         std::is_same_v<M, std::optional<std::vector<std::optional<std::string_view>>>>) {
      for (const auto& s : *member) {
        if (s) fuzz::mix(h, *s);
      }
    } else if constexpr (std::is_same_v<M, std::optional<value>>) {
      fuzz::mix(h, fuzz::touch(*member));
    } else if constexpr (std::is_same_v<M, std::optional<bytea>>) {
      fuzz::mix(h, member->bytes());
    } else {
      fuzz::mix(h, 1);
    }
  });
  return h;
}

auto touch_change(const change& c) -> std::uint64_t {
  std::uint64_t h = static_cast<std::uint64_t>(c.op());
  const relation_info& relation = c.relation();
  fuzz::mix(h, relation.table);
  if (c.op() == change_op::truncate) {
    REPLICANT_FUZZ_CHECK(c.record().empty() && c.old().empty());
    fuzz::mix(h, static_cast<std::uint64_t>(c.truncate_cascade()) + 2U * c.truncate_restart_identity());
    return h;
  }
  const row record = c.record();
  const row old = c.old();
  if (c.op() == change_op::delete_) {
    REPLICANT_FUZZ_CHECK(record.empty() && old.size() == relation.columns.size());
  } else {
    REPLICANT_FUZZ_CHECK(record.size() == relation.columns.size());
  }
  if (!record.empty()) fuzz::mix(h, fuzz::touch_row(relation, record.raw()));
  if (!old.empty()) fuzz::mix(h, fuzz::touch_row(relation, old.raw()));
  for (const std::string_view name : c.unchanged()) fuzz::mix(h, name);
  if (relation.table == "orders") fuzz::mix(h, touch_mapped<order_row>(c));
  if (relation.table == "kinds") fuzz::mix(h, touch_mapped<kinds_row>(c));
  return h;
}

auto touch_transaction(const transaction& t) -> std::uint64_t {
  std::uint64_t h = t.xid();
  REPLICANT_FUZZ_CHECK(!t.empty());
  std::size_t changes = 0;
  for (const change& c : t.changes()) {
    fuzz::mix(h, touch_change(c));
    ++changes;
  }
  REPLICANT_FUZZ_CHECK(changes == t.change_count());
  for (const logical_message& m : t.messages()) {
    REPLICANT_FUZZ_CHECK(m.transactional);
    fuzz::mix(h, m.prefix);
    fuzz::mix(h, m.content);
  }
  if (t.origin()) fuzz::mix(h, t.origin()->name);
  return h;
}

// How many delivered transactions are kept to be read again once the assembler is gone: a
// transaction belongs to the caller and holds everything it views (bytes and relation descriptions).
inline constexpr std::size_t kept_transactions = 4;

struct handler {
  assembler* owner;
  session config;
  std::size_t delivered = 0;
  std::vector<transaction> kept{};

  auto operator()(transaction&& t) -> result<void> {
    fuzz::digest_sink = touch_transaction(t);
    ++delivered;
    if (config.recycle) {
      owner->recycle(std::move(t));
    } else if (kept.size() < kept_transactions) {
      kept.push_back(std::move(t));
    }
    if (config.failing_sink && delivered % 3 == 0) return fail(errc::sink_failed);
    return {};
  }
  auto operator()(const logical_message& m) -> result<void> {
    REPLICANT_FUZZ_CHECK(!m.transactional);
    std::uint64_t h = 0;
    fuzz::mix(h, m.prefix);
    fuzz::mix(h, m.content);
    fuzz::digest_sink = h;
    return {};
  }
  auto operator()(const schema_change& c) -> result<void> {
    REPLICANT_FUZZ_CHECK(c.kind != schema_change_kind::none);
    fuzz::digest_sink = c.changes.size();
    return {};
  }
  auto operator()(const empty_commit& e) -> result<void> {
    fuzz::digest_sink = e.end_lsn.value();
    return {};
  }
  auto operator()(const prepared_event& p) -> result<void> {
    std::uint64_t h = p.change_count;
    fuzz::mix(h, p.gid);
    fuzz::digest_sink = h;
    return {};
  }
  auto operator()(const rollback_prepared_event& r) -> result<void> {
    fuzz::digest_sink = r.xid;
    return {};
  }
  auto operator()(const stream_abort_event& a) -> result<void> {
    fuzz::digest_sink = a.dropped_changes;
    return {};
  }
};

auto check_accounting(const assembler& a) -> void {
  REPLICANT_FUZZ_CHECK(a.largest_open_transaction_bytes() <= a.resident_bytes());
  if (a.idle()) REPLICANT_FUZZ_CHECK(a.resident_bytes() == 0 && a.open_streams() == 0 && !a.in_transaction());
}

}  // namespace

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int {
  fuzz::begin_input();
  static const std::vector<pg::bytes> preload = preload_messages();
  if (size == 0) return 0;
  const session config = session::from(data[0]);
  auto owner = std::make_unique<assembler>(fuzz::protocols[config.protocol]);
  assembler& a = *owner;
  handler h{&a, config};
  if (config.preload) {
    for (const auto& m : preload) {
      if (!a.push(m, h)) fuzz::property_failed("a preload message was refused", __FILE__, __LINE__);
    }
  }
  fuzz::chunk_reader chunks{data, size};
  while (auto chunk = chunks.next()) {
    if (chunk->reconnect()) {
      a.reset();
      REPLICANT_FUZZ_CHECK(a.idle());
      continue;
    }
    const auto pushed = a.push(chunk->bytes(), h);
    chunk->release();
    if (!pushed) {
      fuzz::check_error(pushed.error());
      a.reset();
      REPLICANT_FUZZ_CHECK(a.idle());
    }
    check_accounting(a);
  }
  a.reset();
  REPLICANT_FUZZ_CHECK(a.idle() && a.resident_bytes() == 0);
  // The kept transactions outlive the assembler, its decoder and every payload.
  owner.reset();
  for (const transaction& t : h.kept) fuzz::digest_sink = touch_transaction(t);
  return 0;
}
