// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_DETAIL_PUBLICATION_DEFINITION_HPP
#define REPLICANT_PIPELINE_DETAIL_PUBLICATION_DEFINITION_HPP

/// @file
/// What the publications of a stream publish, read from the catalogs when a session starts and
/// again at every periodic publication check, and whether it narrowed in between. pgoutput applies
/// `ALTER PUBLICATION ... DROP TABLE` (or `SET TABLE`, a new row filter or column list, a shorter
/// `publish` list) from its point in the WAL on and says nothing about it: rows simply stop
/// arriving. This is how the pipeline notices.
///
/// Everything read here stays in memory: a row filter is an expression that can quote values, and
/// names are the catalog's. Only a table's name may leave, in a halt, as for schema changes.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/result.hpp>
#include <replicant/pipeline/publication_shape.hpp>
#include <replicant/pq/connection.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace replicant::detail {

// What narrowed, for one finding.
enum class narrowing_kind {
  table_removed,      // a relation left the explicit list (verified: it exists and is published no more)
  schema_removed,     // a schema left the list (verified: it exists)
  row_filter,         // a row filter was set, or changed
  column_list,        // a column list was set, or lost columns
  operations,         // insert, update, delete or truncate stopped being published
  via_root,           // publish_via_partition_root changed: changes now name other relations
  generated_columns,  // stored generated columns stopped being published (18)
  all_tables,         // FOR ALL TABLES no more (the publication was recreated)
};

struct narrowing {
  narrowing_kind kind{};
  std::uint32_t oid = 0;            // the relation or schema of the *_removed kinds
  std::optional<table_name> table;  // the table concerned, when one is
};

REPLICANT_DECL auto parse_oid(std::string_view text) noexcept -> std::optional<std::uint32_t>;

// An int2vector's text ("1 3 4") as sorted numbers; nothing when it is not one.
REPLICANT_DECL auto parse_attnums(std::string_view text) -> std::optional<std::vector<int>>;

// `IN (...)` of the requested publication names (validated identifiers, so quoting cannot fail).
REPLICANT_DECL auto publication_name_list(std::span<const std::string> publications) -> std::string;

// One query for all of it, seven text columns per row: 'p' rows carry a publication's flags, 'r'
// rows a relation of its explicit list, 's' rows a schema of its list. Catalog objects are
// schema-qualified so that a hostile search_path cannot substitute them.
REPLICANT_DECL auto publication_definition_query(std::span<const std::string> publications, int server_version)
    -> std::string;

// The definitions in the rows of publication_definition_query(); `protocol_violation` for rows of
// another shape.
REPLICANT_DECL auto parse_publication_definitions(const pq::query_result& rows) -> result<publication_definitions>;

// Reads the definitions of @p publications on @p conn (a walsender or an ordinary session).
REPLICANT_DECL auto read_publication_definitions(pq::connection& conn, std::span<const std::string> publications)
    -> result<publication_definitions>;

// Whether @p now publishes less than @p before did, finding by finding. Removed relations and
// schemas are candidates only: the caller checks that they still exist (a dropped table leaves
// every publication, and that is a schema matter, not a publication change). Additions are not
// findings. A publication missing from @p now is skipped (publication_missing covers it).
REPLICANT_DECL auto find_narrowings(const publication_definitions& before, const publication_definitions& now)
    -> std::vector<narrowing>;

// Whether a removed relation or schema is a real narrowing: it still exists and, for a relation,
// none of @p publications publishes it any more by another route (a schema, FOR ALL TABLES, another
// publication). A query failure is returned as such.
REPLICANT_DECL auto still_narrowed(pq::connection& conn, const narrowing& n, std::span<const std::string> publications)
    -> result<bool>;

/*
 * The periodic check: reads the definitions of @p publications on @p conn and compares them with
 * @p baseline, what the session started with. Returns the halt for the first real narrowing, or
 * nothing; when the definitions only grew (a table added, a filter removed) they become the new
 * baseline, so that a later narrowing of what was added is noticed too. An error is a failed
 * query, left to the next check.
 */
REPLICANT_DECL auto check_publication_definitions(pq::connection& conn, std::span<const std::string> publications,
                                                  publication_definitions& baseline) -> result<std::optional<halt>>;

}  // namespace replicant::detail

// The bodies, which build and parse the catalog queries: in every unit header-only, in the one unit
// that includes <replicant/src.hpp> with REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/pipeline/detail/impl/publication_definition.hpp>
#endif

#endif  // REPLICANT_PIPELINE_DETAIL_PUBLICATION_DEFINITION_HPP
