// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Fuzzes replicant::pgoutput_reader with one pgoutput message at a time, in every protocol and
// streaming configuration, with the decoder's caches already holding relations so that change
// messages get as far as tuple parsing, and every decoded value is then cast.
//
// Input: byte 0 selects the session (see `session` below), the rest is one pgoutput message.
//
// Properties, besides the sanitizers':
// - a failed decode reports decode_failure or protocol_violation, value-free, and leaves
//   the decoder as it was (documented in pgoutput.hpp);
// - a decoded change names a cached relation whose column count matches its tuples, every field
//   of its rows casts or fails only as field::value documents, and the messages that carry an xid
//   carry one exactly inside a stream;
// - a decoded Relation or Type is what the decoder's caches return afterwards, and the same Relation
//   decoded again is recognised as an identical re-send.
#include <replicant/decoder/pgoutput_reader.hpp>

#include "fuzz_common.hpp"
#include "support/wire/pgoutput_builder.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace {

using namespace replicant;
namespace pg = replicant::test;

constexpr std::uint32_t stream_xid = 7'001;

// Byte 0 of the input:
//   bits 0-2  the protocol/streaming configuration (fuzz::protocols)
//   bit 3     start inside a streamed block (configurations that stream only)
//   bit 4     ... in which the orders relation was described again, with an extra column
//   bit 5     reset() first (a reconnect: relations must be described again before changes)
//   bit 6     decode the message twice (re-sends, a second Stream Start, ...)
struct session {
  std::size_t protocol;
  bool in_stream;
  bool stream_redescribed;
  bool reset;
  bool twice;

  static auto from(std::uint8_t b) -> session {
    session s{b & 7U, (b & 8U) != 0, (b & 16U) != 0, (b & 32U) != 0, (b & 64U) != 0};
    if (fuzz::protocols[s.protocol].streaming == pgoutput_streaming::off) s.in_stream = false;
    if (!s.in_stream) s.stream_redescribed = false;
    return s;
  }
};

auto decode_or_die(pgoutput_reader& d, const pg::bytes& message) -> void {
  if (!d.decode(message)) fuzz::property_failed("a setup message did not decode", __FILE__, __LINE__);
}

// The messages every session starts from: a Type, one single-column relation per entry of
// fuzz::cast_oids (relation OID = type OID), a wide relation with all of them, and orders.
auto setup_messages() -> std::vector<pg::bytes> {
  std::vector<pg::bytes> out;
  out.push_back(pg::type(std::nullopt, fuzz::user_type_oid, "public", "mood"));
  std::vector<pg::attr> wide;
  for (const std::uint32_t oid : fuzz::cast_oids) {
    out.push_back(pg::relation(std::nullopt, oid, "public", "t" + std::to_string(oid), 'd', {{"v", oid, -1, true}}));
    wide.push_back({"c" + std::to_string(oid), oid, -1, wide.empty()});
  }
  out.push_back(pg::relation(std::nullopt, fuzz::wide_relation_oid, "", "wide", 'f', wide));
  out.push_back(pg::relation(std::nullopt, fuzz::orders_relation_oid, "public", "orders", 'd',
                             {{"id", pg_type::int4, -1, true},
                              {"customer", pg_type::text, -1, false},
                              {"amount", pg_type::numeric, 655'366, false}}));
  return out;
}

// One prepared decoder per distinct session start, copied for each input (copying is much cheaper
// than decoding some sixty Relation messages every time).
struct prototypes {
  std::array<std::array<std::optional<pgoutput_reader>, 3>, fuzz::protocols.size()> decoders;

  prototypes() {
    const auto setup = setup_messages();
    for (std::size_t p = 0; p < fuzz::protocols.size(); ++p) {
      pgoutput_reader base{fuzz::protocols[p]};
      for (const auto& m : setup) decode_or_die(base, m);
      decoders[p][0].emplace(base);
      if (fuzz::protocols[p].streaming == pgoutput_streaming::off) continue;
      pgoutput_reader streaming = base;
      decode_or_die(streaming, pg::stream_start(stream_xid, true));
      decoders[p][1].emplace(streaming);
      decode_or_die(streaming, pg::relation(stream_xid, fuzz::orders_relation_oid, "public", "orders", 'd',
                                            {{"id", pg_type::int4, -1, true},
                                             {"customer", pg_type::text, -1, false},
                                             {"amount", pg_type::numeric, 655'366, false},
                                             {"note", pg_type::text, -1, false}}));
      decoders[p][2].emplace(streaming);
    }
  }

  [[nodiscard]] auto start(const session& s) const -> pgoutput_reader {
    return *decoders[s.protocol][s.stream_redescribed ? 2 : (s.in_stream ? 1 : 0)];
  }
};

// What must not change when a decode fails.
struct observable_state {
  bool in_stream;
  std::optional<transaction_id> stream_xid;
  std::shared_ptr<const relation_info> orders;
  std::shared_ptr<const relation_info> wide;
  std::shared_ptr<const schema_change> last_change;

  static auto of(const pgoutput_reader& d) -> observable_state {
    return {d.in_stream(), d.stream_xid(), d.find_relation(fuzz::orders_relation_oid),
            d.find_relation(fuzz::wide_relation_oid), d.last_schema_change()};
  }
  friend auto operator==(const observable_state&, const observable_state&) -> bool = default;
};

template <class M>
constexpr bool has_xid = requires(const M& m) {
  { m.xid } -> std::same_as<const std::optional<transaction_id>&>;
};

auto check_relation(const pgoutput_reader& d, const relation_info* relation, replicant::tuple_data tuple,
                    std::uint32_t oid) -> void {
  REPLICANT_FUZZ_CHECK(relation != nullptr && relation->oid == oid);
  REPLICANT_FUZZ_CHECK(d.find_relation(oid).get() == relation);
  REPLICANT_FUZZ_CHECK(tuple.size() == relation->columns.size());
}

auto touch_message(const pgoutput_reader& d, const pgoutput::message& message) -> void {
  std::uint64_t h = message.index();
  std::visit(
      [&](const auto& m) {
        using M = std::decay_t<decltype(m)>;
        if constexpr (has_xid<M>) REPLICANT_FUZZ_CHECK(m.xid.has_value() == d.in_stream());
        if constexpr (std::is_same_v<M, pgoutput::insert_message>) {
          check_relation(d, m.relation, m.new_tuple, m.relation_oid);
          fuzz::mix(h, fuzz::touch_row(*m.relation, m.new_tuple));
        } else if constexpr (std::is_same_v<M, pgoutput::update_message>) {
          check_relation(d, m.relation, m.new_tuple, m.relation_oid);
          fuzz::mix(h, fuzz::touch_row(*m.relation, m.new_tuple));
          if (m.old_kind != replicant::old_tuple_kind::none) {
            fuzz::mix(h, fuzz::touch_row(*m.relation, m.old_tuple));
          } else {
            REPLICANT_FUZZ_CHECK(m.old_tuple.empty());
          }
        } else if constexpr (std::is_same_v<M, pgoutput::delete_message>) {
          REPLICANT_FUZZ_CHECK(m.old_kind != replicant::old_tuple_kind::none);
          check_relation(d, m.relation, m.old_tuple, m.relation_oid);
          fuzz::mix(h, fuzz::touch_row(*m.relation, m.old_tuple));
        } else if constexpr (std::is_same_v<M, pgoutput::truncate_message>) {
          std::size_t n = 0;
          for (const std::uint32_t oid : m.relation_oids) {
            REPLICANT_FUZZ_CHECK(m.relation_oids[n] == oid);
            fuzz::mix(h, oid);
            ++n;
          }
          REPLICANT_FUZZ_CHECK(n == m.relation_oids.size());
        } else if constexpr (std::is_same_v<M, pgoutput::relation_message>) {
          REPLICANT_FUZZ_CHECK(m.relation != nullptr);
          REPLICANT_FUZZ_CHECK(d.find_relation(m.relation->oid) == m.relation);
          REPLICANT_FUZZ_CHECK(d.last_schema_change() == m.change);
          fuzz::mix(h, m.relation->schema);
          fuzz::mix(h, m.relation->table);
          for (const column_info& c : m.relation->columns) fuzz::mix(h, c.name);
          if (m.change) {
            REPLICANT_FUZZ_CHECK(m.change->kind != schema_change_kind::none);
            fuzz::mix(h, m.change->changes.size());
          }
        } else if constexpr (std::is_same_v<M, pgoutput::type_message>) {
          const type_info* t = d.find_type(m.oid);
          REPLICANT_FUZZ_CHECK(t != nullptr && t->schema == m.schema && t->name == m.name);
        } else if constexpr (std::is_same_v<M, pgoutput::logical_message>) {
          fuzz::mix(h, m.prefix);
          fuzz::mix(h, m.content);
        } else if constexpr (std::is_same_v<M, pgoutput::origin_message>) {
          fuzz::mix(h, m.name);
        } else if constexpr (requires { m.gid; }) {
          REPLICANT_FUZZ_CHECK(m.gid.size() < 200);
          fuzz::mix(h, m.gid);
        }
      },
      message);
  fuzz::digest_sink = h;
}

// Decodes and checks one message; returns the relation description when it was a Relation.
auto decode_once(pgoutput_reader& d, std::span<const std::byte> payload) -> std::shared_ptr<const relation_info> {
  const observable_state before = observable_state::of(d);
  const auto decoded = d.decode(payload);
  if (!decoded) {
    fuzz::check_error(decoded.error());
    REPLICANT_FUZZ_CHECK(decoded.error() == errc::decode_failure || decoded.error() == errc::protocol_violation);
    REPLICANT_FUZZ_CHECK(observable_state::of(d) == before);
    return nullptr;
  }
  touch_message(d, *decoded);
  const auto* relation = std::get_if<pgoutput::relation_message>(&*decoded);
  return relation != nullptr ? relation->relation : nullptr;
}

}  // namespace

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int {
  fuzz::begin_input();
  static const prototypes start;
  if (size == 0) return 0;
  const session s = session::from(data[0]);
  const std::span<const std::byte> payload{reinterpret_cast<const std::byte*>(data) + 1, size - 1};
  pgoutput_reader decoder = start.start(s);
  if (s.reset) decoder.reset();
  const auto described = decode_once(decoder, payload);
  if (s.twice) {
    const auto again = decode_once(decoder, payload);
    // pgoutput re-sends identical descriptions routinely: the cached one is kept, with no change.
    if (described) REPLICANT_FUZZ_CHECK(again == described && !decoder.last_schema_change());
  }
  return 0;
}
