// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_FUZZ_TRANSLATOR_FUZZ_HPP
#define REPLICANT_TESTS_FUZZ_TRANSLATOR_FUZZ_HPP

// What the fuzzers of the translating decoders (wal2json, pglogical) share: their input format,
// the loop that feeds an input's payloads through a translator into a replicant::assembler (as
// the replication pipeline does), and the assembler's delivery target, which reads everything
// delivered and checks what a translation may produce.
//
// Input: byte 0 selects the session (bit 0 seeds the decoder with the fuzzer's catalog of the
// recorded session's tables, so that its messages find their types; each fuzzer says what its
// other bits mean); then chunks, each a big-endian u16 length and that many bytes (cut short at
// the end of the input). A chunk is one XLogData payload, translated from a heap buffer of its own
// that is overwritten and freed right after, so that AddressSanitizer reports any view kept into
// it. A chunk of length 0 is a reconnect: reset() of both the decoder and the assembler.
//
// Properties, besides the sanitizers':
// - translation errors are value-free and one of the documented codes; after one, reset() of both
//   leaves them idle;
// - the assembler accepts every message the decoder emits: the translation is always well-formed
//   pgoutput, with every relation described before its changes and changes only inside a
//   transaction (an assembler error would be the decoder's fault);
// - every delivered transaction can be read whole: each change's rows have one field per column
//   of its relation and cast as field::value documents.

#include "fuzz_common.hpp"

#include <replicant/assembler/assembler.hpp>
#include <replicant/decoder/catalog.hpp>
#include <replicant/model/schema_change.hpp>
#include <replicant/model/transaction.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

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

// Checks an error of translate(): value-free (fuzz::check_error), and one that @p documented
// (`(std::error_code) -> bool`) says the decoder's translate() documents.
template <class Documented>
auto check_translation_error(std::error_code ec, Documented documented) -> void {
  check_error(ec);
  REPLICANT_FUZZ_CHECK(documented(ec));
}

// One input of a translator's fuzzer (the body of its LLVMFuzzerTestOneInput): the decoder that
// @p make_decoder (`(std::uint8_t session, relation_catalog seed)`) makes for the session byte,
// seeded with @p catalog when bit 0 asks for it, translates the input's chunks into a fresh
// assembler, under the properties above; its errors are checked with check_translation_error().
template <class MakeDecoder, class Documented>
auto fuzz_translator(std::string_view plugin, const std::uint8_t* data, std::size_t size,
                     const relation_catalog& catalog, MakeDecoder make_decoder, Documented documented) -> int {
  begin_input();
  if (size == 0) return 0;
  const bool seeded = (data[0] & 1U) != 0;
  auto decoder = make_decoder(data[0], seeded ? catalog : relation_catalog{});
  auto owner = std::make_unique<assembler>();
  assembler& a = *owner;
  translated_handler h{plugin};
  const auto emit = [&](std::span<const std::byte> message) -> result<void> {
    auto pushed = a.push(message, h);
    if (!pushed) property_failed("the assembler refused a translated message", __FILE__, __LINE__);
    return pushed;
  };

  chunk_reader chunks{data, size};
  while (auto chunk = chunks.next()) {
    if (chunk->reconnect()) {
      decoder.reset();
      a.reset();
      REPLICANT_FUZZ_CHECK(a.idle() && !decoder.in_transaction());
      continue;
    }
    const auto translated = decoder.translate(chunk->bytes(), emit);
    chunk->release();
    if (!translated) {
      check_translation_error(translated.error(), documented);
      decoder.reset();
      a.reset();
    }
    REPLICANT_FUZZ_CHECK(decoder.in_transaction() == a.in_transaction());
  }
  return 0;
}

}  // namespace replicant::fuzz

#endif  // REPLICANT_TESTS_FUZZ_TRANSLATOR_FUZZ_HPP
