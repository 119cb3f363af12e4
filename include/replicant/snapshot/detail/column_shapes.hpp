// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SNAPSHOT_DETAIL_COLUMN_SHAPES_HPP
#define REPLICANT_SNAPSHOT_DETAIL_COLUMN_SHAPES_HPP

// The columns of published tables as the snapshot readers need them: name, type, modifier, and
// the key flag pgoutput would send for each (logicalrep_write_attrs): every column under REPLICA
// IDENTITY FULL, otherwise the columns of the replica identity index, which is the primary key for
// DEFAULT and the chosen index for USING INDEX, and counts only when live, valid, unique,
// immediate and not partial (RelationGetIndexList).

#include <replicant/core/detail/config.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/relation.hpp>
#include <replicant/pq/connection.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace replicant::detail {

// The publications @p publications as a SQL array of literals (duplicates collapsed), once every
// one of them is known to exist: pg_publication_tables lists nothing for a publication that does
// not, and a snapshot that silently skipped tables would be worse than none.
// @return the array, `errc::publication_missing`, or the error.
[[nodiscard]] REPLICANT_DECL auto existing_publications(pq::connection& conn, std::span<const std::string> publications)
    -> result<std::string>;

// One column of a table, with its attribute number.
struct catalog_attribute {
  std::int16_t number = 0;
  column_info column;
};

// The live columns of the tables @p oids, in attribute order, by table OID.
[[nodiscard]] REPLICANT_DECL auto read_column_shapes(pq::connection& conn, std::span<const std::uint32_t> oids)
    -> result<std::unordered_map<std::uint32_t, std::vector<catalog_attribute>>>;

}  // namespace replicant::detail

// The bodies: in every unit header-only, in the one unit that includes <replicant/src.hpp> with
// REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/snapshot/detail/impl/column_shapes.hpp>
#endif

#endif  // REPLICANT_SNAPSHOT_DETAIL_COLUMN_SHAPES_HPP
