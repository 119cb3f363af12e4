// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Fuzzes replicant::pglogical_decoder with sequences of pglogical_output payloads (its native
// protocol), each translated into pgoutput messages that go straight into a replicant::assembler,
// as the replication pipeline does.
//
// The input format (byte 0 selects the session: bit 0 seeds the catalog, the only choice here) and
// the properties checked are translator_fuzz.hpp's.
#include <replicant/decoder/pglogical.hpp>

#include "fuzz_common.hpp"
#include "translator_fuzz.hpp"

#include <replicant/decoder/catalog.hpp>

#include <cstddef>
#include <cstdint>
#include <system_error>
#include <utility>

namespace {

using namespace replicant;

// The recording's tables, by the OIDs they had in it (tests/data/pglogical/plugins.pg15.capture).
auto make_catalog() -> relation_catalog {
  relation_catalog c;
  relation_info kinds;
  kinds.oid = 16'555;
  kinds.schema = "public";
  kinds.table = "kinds";
  struct named_type {
    const char* name;
    std::uint32_t oid;
  };
  // clang-format off
  const named_type kind_columns[] = {
      {"id", pg_type::int4}, {"c_bool", pg_type::boolean}, {"c_int2", pg_type::int2}, {"c_int4", pg_type::int4},
      {"c_int8", pg_type::int8}, {"c_float4", pg_type::float4}, {"c_float8", pg_type::float8},
      {"c_numeric", pg_type::numeric}, {"c_numeric_scaled", pg_type::numeric}, {"c_money", pg_type::money},
      {"c_text", pg_type::text}, {"c_varchar", pg_type::varchar}, {"c_bpchar", pg_type::bpchar},
      {"c_bytea", pg_type::bytea}, {"c_uuid", pg_type::uuid}, {"c_json", pg_type::json}, {"c_jsonb", pg_type::jsonb},
      {"c_date", pg_type::date}, {"c_time", pg_type::time}, {"c_timestamp", pg_type::timestamp},
      {"c_timestamptz", pg_type::timestamptz}, {"c_interval", pg_type::interval},
      {"c_int4_array", pg_type::int4_array}, {"c_text_array", pg_type::text_array},
      {"c_numeric_array", pg_type::numeric_array}, {"c_bool_array", pg_type::boolean_array},
      {"c_varchar_array", pg_type::varchar_array}, {"c_domain", 16'547}, {"c_enum", 16'550}};
  // clang-format on
  for (const named_type& k : kind_columns) kinds.columns.push_back({k.name, k.oid, -1, kinds.columns.empty()});
  if (!c.add(kinds)) fuzz::property_failed("catalog", __FILE__, __LINE__);
  const auto text_table = [&c](std::uint32_t oid, const char* name, replica_identity identity) {
    relation_info r;
    r.oid = oid;
    r.schema = "public";
    r.table = name;
    r.identity = identity;
    r.columns = {{"id", pg_type::int4, -1, true},
                 {"note", pg_type::text, -1, identity == replica_identity::full},
                 {"big", pg_type::text, -1, identity == replica_identity::full}};
    if (!c.add(r)) fuzz::property_failed("catalog", __FILE__, __LINE__);
  };
  text_table(16'562, "docs", replica_identity::default_key);
  text_table(16'569, "full_identity", replica_identity::full);
  relation_info trunc;
  trunc.oid = 16'588;
  trunc.schema = "public";
  trunc.table = "trunc_a";
  trunc.columns = {{"id", pg_type::int4, -1, true}};
  if (!c.add(trunc)) fuzz::property_failed("catalog", __FILE__, __LINE__);
  return c;
}

// Whether @p ec is one of the documented errors of translate().
auto documented(std::error_code ec) -> bool {
  return ec == errc::decode_failure || ec == errc::protocol_violation || ec == errc::unsupported_server ||
         ec == errc::protocol_unsupported || ec == std::errc::not_enough_memory;
}

// The decoder of one input: the recording's replication set, and @p seed as its catalog. The
// session byte has no other choice here.
auto make_decoder(std::uint8_t /*session*/, relation_catalog seed) -> pglogical_decoder {
  pglogical_options options;
  options.replication_sets = {"default"};
  return pglogical_decoder{options, std::move(seed)};
}

}  // namespace

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int {
  static const relation_catalog catalog = make_catalog();
  return fuzz::fuzz_translator("pglogical", data, size, catalog, make_decoder, documented);
}
