// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SNAPSHOT_DETAIL_PUBLISHED_TABLES_HPP
#define REPLICANT_SNAPSHOT_DETAIL_PUBLISHED_TABLES_HPP

// The tables a set of publications publishes, each as both snapshot readers read it: the columns
// pgoutput sends for it, in its order, and the rows any of the publications publishes. One listing
// for both readers, so that a point-in-time snapshot and an incremental one never disagree on what
// a table is.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/relation.hpp>
#include <replicant/pq/connection.hpp>
#include <replicant/snapshot/detail/column_shapes.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace replicant::detail {

// A published table, ready to be read.
struct published_table {
  std::shared_ptr<relation_info> relation;  // names, identity, and the published columns in order
  std::vector<std::int16_t> attnums;        // the attribute numbers of relation->columns, in order
  std::string select;                       // "SELECT <columns> FROM [ONLY] <schema>.<table>"
  std::string filter;                       // "(<f1>) OR (<f2>)", or empty when every row is published
  std::vector<std::string> extra;           // the values of the caller's extra columns, in order
};

namespace published_tables_detail {

// One table as the catalog lists it, merged over the publications that publish it.
struct listed_table {
  std::uint32_t oid = 0;
  std::string schema;
  std::string name;
  char kind = 'r';
  char identity = 'd';
  std::string columns;                 // attnum list, the same for every publication
  std::vector<std::string> extra{};    // from the first publication's row
  bool unfiltered = false;             // some publication has no row filter
  std::vector<std::string> filters{};  // distinct row filters otherwise
};

// The catalog's rows for @p array (existing_publications), one per (table, publication), merged
// into one entry per table in the order of the rows. @p extra_columns are SQL over `c` (pg_class).
[[nodiscard]] REPLICANT_DECL auto list(pq::connection& conn, const std::string& array,
                                       std::span<const std::string> extra_columns) -> result<std::vector<listed_table>>;

// @p t ready to be read, its columns taken from @p shape (read_column_shapes).
[[nodiscard]] REPLICANT_DECL auto prepare(listed_table&& t, const std::vector<catalog_attribute>& shape)
    -> result<published_table>;

}  // namespace published_tables_detail

// The tables @p publications publish (every one of which must exist), in schema and name order,
// each with the values of @p extra_columns: SQL over `c`, the table's pg_class row, for what one
// reader needs beyond the rest (the incremental reader's key and shape). Fails with
// `errc::publication_missing` for a publication that does not exist, `errc::invalid_options` for a
// table whose publications publish different columns, or the error.
[[nodiscard]] REPLICANT_DECL auto read_published_tables(pq::connection& conn, std::span<const std::string> publications,
                                                        std::span<const std::string> extra_columns = {})
    -> result<std::vector<published_table>>;

}  // namespace replicant::detail

// The bodies: in every unit header-only, in the one unit that includes <replicant/src.hpp> with
// REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/snapshot/detail/impl/published_tables.hpp>
#endif

#endif  // REPLICANT_SNAPSHOT_DETAIL_PUBLISHED_TABLES_HPP
