// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SNAPSHOT_DETAIL_IMPL_PUBLISHED_TABLES_HPP
#define REPLICANT_SNAPSHOT_DETAIL_IMPL_PUBLISHED_TABLES_HPP

// Out-of-line bodies of the listing of published tables (replicant::detail::read_published_tables
// and its helpers). Included at the bottom of <replicant/snapshot/detail/published_tables.hpp>
// (which it includes nothing of back); with REPLICANT_SEPARATE_COMPILATION only by
// <replicant/snapshot/src.hpp>, which compiles them once.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/relation.hpp>
#include <replicant/pq/connection.hpp>
#include <replicant/snapshot/detail/column_shapes.hpp>
#include <replicant/snapshot/detail/decimal.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace replicant::detail {

namespace published_tables_detail {

[[nodiscard]] REPLICANT_DECL auto list(pq::connection& conn, const std::string& array,
                                       std::span<const std::string> extra_columns)
    -> result<std::vector<listed_table>> {
  // The published columns come back as attribute numbers, so no name array has to be parsed here:
  // `attnames` lists the column list, or every column when there is none. pgoutput never sends
  // generated columns before PostgreSQL 18, while 15's view lists them, hence the version-dependent
  // filter; 18 lists exactly the published ones, and never sends virtual generated columns.
  const char* const generated =
      conn.server_version() < 180000 ? " AND a.attgenerated = ''" : " AND a.attgenerated <> 'v'";
  std::string extra;
  for (const std::string& column : extra_columns) extra += ", " + column;
  auto rows = conn.exec(
      "SELECT c.oid, n.nspname, c.relname, c.relkind, c.relreplident, t.rowfilter,"
      " (SELECT pg_catalog.string_agg(a.attnum::pg_catalog.text, ' ' ORDER BY a.attnum)"
      "    FROM pg_catalog.pg_attribute a"
      "   WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attname = ANY(t.attnames)" +
      std::string{generated} + ")" + extra +
      " FROM pg_catalog.pg_publication_tables t"
      " JOIN pg_catalog.pg_namespace n ON n.nspname = t.schemaname"
      " JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = t.tablename"
      " WHERE t.pubname = ANY(" +
      array +
      ")"
      " ORDER BY n.nspname COLLATE \"C\", c.relname COLLATE \"C\", t.pubname COLLATE \"C\"");
  if (!rows) return unexpected(rows.error());

  std::vector<listed_table> tables;
  std::unordered_map<std::uint32_t, std::size_t> by_oid;
  for (int row = 0; row < rows->rows(); ++row) {
    const auto oid = parse_decimal<std::uint32_t>(rows->get(row, 0));
    const std::string_view kind = rows->get(row, 3);
    const std::string_view identity = rows->get(row, 4);
    if (!oid || kind.size() != 1 || identity.size() != 1 ||
        !is_replica_identity(static_cast<std::uint8_t>(identity[0]))) {
      return fail(errc::protocol_violation);
    }
    const std::string_view columns = rows->get(row, 6);  // NULL (no column at all) reads as empty
    const auto [at, added] = by_oid.try_emplace(*oid, tables.size());
    if (added) {
      listed_table& t = tables.emplace_back();
      t.oid = *oid;
      t.schema = rows->get(row, 1);
      t.name = rows->get(row, 2);
      t.kind = kind[0];
      t.identity = identity[0];
      t.columns = columns;
      for (int i = 0; i < static_cast<int>(extra_columns.size()); ++i) t.extra.emplace_back(rows->get(row, 7 + i));
    } else if (tables[at->second].columns != columns) {
      // pgoutput refuses to stream such a table ("cannot use different column lists for table ...
      // in different publications"), so there is no consistent shape to snapshot it in either.
      return fail(errc::invalid_options);
    }
    listed_table& t = tables[at->second];
    if (const auto filter = rows->get_optional(row, 5); !filter) {
      t.unfiltered = true;
    } else if (std::find(t.filters.begin(), t.filters.end(), *filter) == t.filters.end()) {
      t.filters.emplace_back(*filter);
    }
  }
  return tables;
}

[[nodiscard]] REPLICANT_DECL auto prepare(listed_table&& t, const std::vector<catalog_attribute>& shape)
    -> result<published_table> {
  const auto attnums = parse_attnum_list(t.columns);
  if (!attnums) return fail(errc::protocol_violation);
  published_table out{std::make_shared<relation_info>(), *attnums, {}, {}, std::move(t.extra)};
  out.relation->oid = t.oid;
  out.relation->schema = t.schema;
  out.relation->table = t.name;
  out.relation->identity = static_cast<replica_identity>(t.identity);
  std::string select_list;
  for (const std::int16_t number : *attnums) {
    const auto it =
        std::find_if(shape.begin(), shape.end(), [number](const catalog_attribute& a) { return a.number == number; });
    if (it == shape.end()) return fail(errc::protocol_violation);
    const auto quoted = quote_identifier(it->column.name);
    if (!quoted) return unexpected(quoted.error());
    if (!select_list.empty()) select_list += ", ";
    select_list += *quoted;
    out.relation->columns.push_back(it->column);
  }
  const auto schema = quote_identifier(t.schema);
  const auto name = quote_identifier(t.name);
  if (!schema) return unexpected(schema.error());
  if (!name) return unexpected(name.error());
  // ONLY for an ordinary table: its inheritance children are published (and read) on their own.
  // A partitioned table is listed only under publish_via_partition_root, and then stands for all
  // of its partitions, converted to its own row type, as pgoutput sends them.
  out.select = "SELECT " + select_list + " FROM " + (t.kind == 'p' ? "" : "ONLY ") + *schema + "." + *name;
  // A row is published when any of its publications' filters accepts it (pgoutput ORs them).
  if (!t.unfiltered) {
    for (std::size_t i = 0; i < t.filters.size(); ++i) {
      if (i != 0) out.filter += " OR ";
      out.filter += "(" + t.filters[i] + ")";
    }
  }
  return out;
}

}  // namespace published_tables_detail

[[nodiscard]] REPLICANT_DECL auto read_published_tables(pq::connection& conn, std::span<const std::string> publications,
                                                        std::span<const std::string> extra_columns)
    -> result<std::vector<published_table>> {
  auto array = existing_publications(conn, publications);
  if (!array) return unexpected(array.error());
  auto listed = published_tables_detail::list(conn, *array, extra_columns);
  if (!listed) return unexpected(listed.error());
  std::vector<std::uint32_t> oids;
  oids.reserve(listed->size());
  for (const auto& t : *listed) oids.push_back(t.oid);
  std::vector<published_table> tables;
  if (oids.empty()) return tables;
  auto shapes = read_column_shapes(conn, oids);
  if (!shapes) return unexpected(shapes.error());
  tables.reserve(listed->size());
  for (auto& t : *listed) {
    const auto oid = t.oid;
    auto prepared = published_tables_detail::prepare(std::move(t), (*shapes)[oid]);
    if (!prepared) return unexpected(prepared.error());
    tables.push_back(std::move(*prepared));
  }
  return tables;
}

}  // namespace replicant::detail

#endif  // REPLICANT_SNAPSHOT_DETAIL_IMPL_PUBLISHED_TABLES_HPP
