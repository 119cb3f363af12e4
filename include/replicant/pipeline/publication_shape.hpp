// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_PUBLICATION_SHAPE_HPP
#define REPLICANT_PIPELINE_PUBLICATION_SHAPE_HPP

/// @file
/// What a publication publishes, as the catalogs describe it: the vocabulary of the periodic
/// publication check, which a model of replicant::server_session or replicant::server_probe reads
/// and compares. A row filter is an expression that can quote values, so these stay in memory:
/// only a table's name leaves, in a halt.

#include <replicant/core/identifier.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace replicant {

/// One relation a publication names explicitly (`pg_publication_rel`, PostgreSQL 15 and later).
struct published_relation {
  table_name name;                          ///< the relation's schema and name
  std::optional<std::string> row_filter;    ///< `pg_get_expr` of its row filter; none: every row
  std::optional<std::vector<int>> columns;  ///< its column list as sorted attnums; none: every column

  /// Member-wise equality.
  friend auto operator==(const published_relation&, const published_relation&) -> bool = default;
};

/// One publication as the catalogs describe it.
struct publication_shape {
  bool all_tables = false;  ///< `FOR ALL TABLES`
  bool insert = false;      ///< inserts are published
  bool update = false;      ///< updates are published
  bool delete_ = false;     ///< deletes are published
  bool truncate = false;    ///< truncates are published
  bool via_root = false;    ///< `publish_via_partition_root`
  char generated = 'n';     ///< `pubgencols` (PostgreSQL 18): `n` none, `s` stored; `n` before 18
  std::map<std::uint32_t, published_relation> relations;  ///< the explicit list, by relation OID
  std::set<std::uint32_t> schemas;                        ///< `FOR TABLES IN SCHEMA`, by namespace OID

  /// Member-wise equality.
  friend auto operator==(const publication_shape&, const publication_shape&) -> bool = default;
};

/// The publications of a session, by name. A requested publication that does not exist is absent
/// (the `publication_missing` check reports it).
using publication_definitions = std::map<std::string, publication_shape, std::less<>>;

}  // namespace replicant

#endif  // REPLICANT_PIPELINE_PUBLICATION_SHAPE_HPP
