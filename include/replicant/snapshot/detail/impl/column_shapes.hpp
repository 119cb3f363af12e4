// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SNAPSHOT_DETAIL_IMPL_COLUMN_SHAPES_HPP
#define REPLICANT_SNAPSHOT_DETAIL_IMPL_COLUMN_SHAPES_HPP

// Out-of-line bodies of the catalog reads of <replicant/snapshot/detail/column_shapes.hpp>: which
// publications exist, and the columns of tables. Included at the bottom of that header (which it
// includes nothing of back); with REPLICANT_SEPARATE_COMPILATION only by
// <replicant/snapshot/src.hpp>, which compiles them once.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/relation.hpp>
#include <replicant/pq/connection.hpp>
#include <replicant/snapshot/detail/decimal.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace replicant::detail {

[[nodiscard]] REPLICANT_DECL auto existing_publications(pq::connection& conn, std::span<const std::string> publications)
    -> result<std::string> {
  std::vector<std::string> names(publications.begin(), publications.end());
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::string array = "ARRAY[";
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto literal = quote_literal(names[i]);
    if (!literal) return unexpected(literal.error());
    if (i != 0) array += ',';
    array += *literal;
  }
  array += "]::pg_catalog.name[]";
  auto count =
      conn.exec("SELECT pg_catalog.count(*) FROM pg_catalog.pg_publication WHERE pubname = ANY(" + array + ")");
  if (!count) return unexpected(count.error());
  const auto found = parse_decimal<std::size_t>(count->get(0, 0));
  if (!found) return fail(errc::protocol_violation);
  if (*found != names.size()) return fail(errc::publication_missing);
  return array;
}

[[nodiscard]] REPLICANT_DECL auto read_column_shapes(pq::connection& conn, std::span<const std::uint32_t> oids)
    -> result<std::unordered_map<std::uint32_t, std::vector<catalog_attribute>>> {
  std::string list = "'{";
  for (std::size_t i = 0; i < oids.size(); ++i) {
    if (i != 0) list += ',';
    list += std::to_string(oids[i]);
  }
  list += "}'::pg_catalog.oid[]";
  auto attributes = conn.exec(
      "SELECT a.attrelid, a.attnum, a.attname, a.atttypid, a.atttypmod,"
      " c.relreplident = 'f' OR EXISTS (SELECT 1 FROM pg_catalog.pg_index i"
      "   WHERE i.indrelid = c.oid AND i.indislive AND i.indisvalid AND i.indisunique AND i.indimmediate"
      "     AND i.indpred IS NULL AND a.attnum = ANY(i.indkey)"
      "     AND CASE c.relreplident WHEN 'd' THEN i.indisprimary WHEN 'i' THEN i.indisreplident ELSE false END)"
      " FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid"
      " WHERE a.attrelid = ANY(" +
      list +
      ") AND a.attnum > 0 AND NOT a.attisdropped"
      " ORDER BY a.attrelid, a.attnum");
  if (!attributes) return unexpected(attributes.error());
  std::unordered_map<std::uint32_t, std::vector<catalog_attribute>> shapes;
  for (int row = 0; row < attributes->rows(); ++row) {
    const auto relid = parse_decimal<std::uint32_t>(attributes->get(row, 0));
    const auto number = parse_decimal<std::int16_t>(attributes->get(row, 1));
    const auto type = parse_decimal<std::uint32_t>(attributes->get(row, 3));
    const auto modifier = parse_decimal<std::int32_t>(attributes->get(row, 4));
    const std::string_view key = attributes->get(row, 5);
    if (!relid || !number || !type || !modifier || (key != "t" && key != "f")) return fail(errc::protocol_violation);
    shapes[*relid].push_back(
        catalog_attribute{*number, column_info{std::string{attributes->get(row, 2)}, *type, *modifier, key == "t"}});
  }
  return shapes;
}

}  // namespace replicant::detail

#endif  // REPLICANT_SNAPSHOT_DETAIL_IMPL_COLUMN_SHAPES_HPP
