// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Fuzzes replicant::wal2json_decoder with sequences of wal2json payloads, each translated into
// pgoutput messages that go straight into a replicant::assembler, as the replication pipeline does.
//
// The input format (byte 0 selects the session, see `session` below) and the properties checked are
// translator_fuzz.hpp's.
#include <replicant/decoder/wal2json.hpp>

#include "fuzz_common.hpp"
#include "translator_fuzz.hpp"

#include <replicant/decoder/catalog.hpp>

#include <cstddef>
#include <cstdint>
#include <system_error>
#include <utility>

namespace {

using namespace replicant;

// Byte 0 of the input, besides bit 0 (seed the catalog, the tables of tests/data/wal2json's capture):
//   bit 1  deliver logical messages
//   bit 2  ask for numeric-data-types-as-string (changes nothing in decoding: wal2json's strings
//          are taken as they come either way, so this checks that claim)
struct session {
  bool messages;
  bool numeric_as_string;

  static auto from(std::uint8_t b) -> session { return {(b & 2U) != 0, (b & 4U) != 0}; }
};

auto make_catalog() -> relation_catalog {
  relation_catalog c;
  relation_info docs;
  docs.oid = 16'562;
  docs.schema = "public";
  docs.table = "docs";
  docs.columns = {
      {"id", pg_type::int4, -1, true}, {"note", pg_type::text, -1, false}, {"big", pg_type::text, -1, false}};
  if (!c.add(docs)) fuzz::property_failed("catalog", __FILE__, __LINE__);
  relation_info full = docs;
  full.oid = 16'569;
  full.table = "full_identity";
  full.identity = replica_identity::full;
  for (column_info& col : full.columns) col.key = true;
  if (!c.add(full)) fuzz::property_failed("catalog", __FILE__, __LINE__);
  relation_info kinds;
  kinds.oid = 16'555;
  kinds.schema = "public";
  kinds.table = "kinds";
  kinds.identity = replica_identity::index;
  kinds.columns = {{"id", pg_type::int4, -1, true},
                   {"c_bool", pg_type::boolean, -1, false},
                   {"c_numeric", pg_type::numeric, -1, false},
                   {"c_bytea", pg_type::bytea, -1, false},
                   {"c_varchar", pg_type::varchar, 24, false}};
  if (!c.add(kinds)) fuzz::property_failed("catalog", __FILE__, __LINE__);
  return c;
}

// Whether @p ec is one of the documented errors of translate().
auto documented(std::error_code ec) -> bool {
  return ec == errc::decode_failure || ec == errc::protocol_violation || ec == errc::lsn_missing ||
         ec == std::errc::not_enough_memory;
}

// The decoder of one input: the session @p first selects, and @p seed as its catalog.
auto make_decoder(std::uint8_t first, relation_catalog seed) -> wal2json_decoder {
  const session config = session::from(first);
  wal2json_options options;
  options.tables = {{"public", "docs"}};
  options.messages = config.messages;
  options.allow_special_numbers_as_null = !config.numeric_as_string;
  return wal2json_decoder{options, std::move(seed)};
}

}  // namespace

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int {
  static const relation_catalog catalog = make_catalog();
  return fuzz::fuzz_translator("wal2json", data, size, catalog, make_decoder, documented);
}
