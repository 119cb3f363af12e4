// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_TAIL_ESTIMATE_HPP
#define REPLICANT_EXAMPLES_TAIL_ESTIMATE_HPP

/// @file
/// How big a snapshot will be, asked of the catalog before it starts, for the progress line's
/// percentage and ETA (progress.hpp).

#include "progress.hpp"

#include <replicant/core/identifier.hpp>
#include <replicant/pq/connection.hpp>

#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

namespace replicant::examples::tail {

namespace detail {

[[nodiscard]] inline auto parse_count(std::string_view text) noexcept -> std::optional<std::uint64_t> {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace detail

/**
 * The statement behind estimate_snapshot() for the publications in @p publication_array (an SQL
 * array of quoted names): the number of published tables, the sum of their rows as the planner's
 * statistics have them (`pg_class.reltuples`, over the leaf partitions of a partitioned table
 * published through its root), and whether every one of them has statistics (`reltuples` is -1
 * for a table never vacuumed or analysed). @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto estimate_query(std::string_view publication_array) -> std::string {
  // pg_partition_tree() lists the partitions of a partitioned table and nothing for any other
  // table, which stands for itself.
  std::string q =
      "SELECT pg_catalog.count(DISTINCT p.oid),"
      " pg_catalog.round(pg_catalog.sum(GREATEST(c.reltuples, 0)))::bigint,"
      " pg_catalog.bool_and(c.reltuples >= 0)"
      " FROM (SELECT DISTINCT c.oid, c.relkind FROM pg_catalog.pg_publication_tables t"
      "   JOIN pg_catalog.pg_namespace n ON n.nspname = t.schemaname"
      "   JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = t.tablename"
      "  WHERE t.pubname = ANY(";
  q += publication_array;
  q += ")) p"
       " CROSS JOIN LATERAL (SELECT tree.relid FROM pg_catalog.pg_partition_tree(p.oid) tree"
       "   WHERE p.relkind = 'p' AND tree.isleaf"
       "  UNION ALL SELECT p.oid WHERE p.relkind <> 'p') leaf"
       " JOIN pg_catalog.pg_class c ON c.oid = leaf.relid";
  return q;
}

/**
 * Estimates what a snapshot of @p publications will read, on an ordinary connection opened with
 * @p conninfo and closed again: the published tables and their rows from the planner's statistics
 * (see estimate_query()). The rows are an estimate: statistics lag behind recent writes, and a row
 * filter reads fewer. With a table that has no statistics yet there is no row total at all, rather
 * than one that is far off.
 *
 * Best effort: the snapshot does not depend on it, so any failure (no connection, a publication
 * that does not exist yet, a server error) gives nothing, and the progress line shows rows and rate
 * only.
 *
 * @param cancel_fd a descriptor that aborts connecting and the query when readable (the stop
 * signal), or -1.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto estimate_snapshot(std::string_view conninfo, std::span<const std::string> publications,
                                            int cancel_fd) -> std::optional<snapshot_estimate> {
  std::string array = "ARRAY[";
  for (std::size_t i = 0; i < publications.size(); ++i) {
    const auto literal = quote_literal(publications[i]);
    if (!literal) return std::nullopt;
    if (i != 0) array += ',';
    array += *literal;
  }
  array += "]::pg_catalog.name[]";
  pq::connect_options options;
  options.timeout = std::chrono::seconds{10};
  options.cancel_fd = cancel_fd;
  options.command_cancel_fd = cancel_fd;
  options.command_timeout = std::chrono::seconds{10};
  auto conn = pq::connection::open(conninfo, pq::session_kind::normal, options);
  if (!conn) return std::nullopt;
  auto r = conn->exec(estimate_query(array));
  if (!r || r->rows() != 1) return std::nullopt;
  snapshot_estimate e;
  const auto tables = detail::parse_count(r->get(0, 0));
  if (!tables) return std::nullopt;
  e.tables = *tables;
  // No table at all: nothing to read (bool_and and sum are NULL over no rows).
  if (e.tables == 0) e.rows = 0;
  if (r->get(0, 2) == "t") e.rows = detail::parse_count(r->get(0, 1));
  return e;
}

}  // namespace replicant::examples::tail

#endif  // REPLICANT_EXAMPLES_TAIL_ESTIMATE_HPP
