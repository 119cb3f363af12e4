// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_DETAIL_IMPL_PUBLICATION_DEFINITION_HPP
#define REPLICANT_PIPELINE_DETAIL_IMPL_PUBLICATION_DEFINITION_HPP

// Out-of-line bodies of the publication definitions' reading and comparing: the catalog query, its
// parsing, and the narrowing checks. Included at the bottom of
// <replicant/pipeline/detail/publication_definition.hpp> (which it includes nothing of back); with
// REPLICANT_SEPARATE_COMPILATION only by <replicant/pipeline/src.hpp>.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace replicant::detail {

REPLICANT_DECL auto parse_oid(std::string_view text) noexcept -> std::optional<std::uint32_t> {
  std::uint32_t v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc{} || r.ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

REPLICANT_DECL auto parse_attnums(std::string_view text) -> std::optional<std::vector<int>> {
  std::vector<int> out;
  while (!text.empty()) {
    const auto space = std::min(text.find(' '), text.size());
    int v = 0;
    const auto r = std::from_chars(text.data(), text.data() + space, v);
    if (r.ec != std::errc{} || r.ptr != text.data() + space) return std::nullopt;
    out.push_back(v);
    text.remove_prefix(std::min(space + 1, text.size()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

REPLICANT_DECL auto publication_name_list(std::span<const std::string> publications) -> std::string {
  std::string out;
  for (const auto& p : publications) {
    if (!out.empty()) out += ", ";
    out += quote_literal(p).value();
  }
  return out;
}

REPLICANT_DECL auto publication_definition_query(std::span<const std::string> publications, int server_version)
    -> std::string {
  const std::string in = publication_name_list(publications);
  const std::string generated = server_version >= 180000 ? "p.pubgencols::text" : "'n'";
  return "SELECT 'p', p.pubname::text, pg_catalog.concat(p.puballtables::int, p.pubinsert::int, p.pubupdate::int,"
         " p.pubdelete::int, p.pubtruncate::int, p.pubviaroot::int, " +
         generated +
         "), NULL::text, NULL::text, NULL::text, NULL::text"
         " FROM pg_catalog.pg_publication p WHERE p.pubname IN (" +
         in +
         ")"
         " UNION ALL"
         " SELECT 'r', p.pubname::text, r.prrelid::text, n.nspname::text, c.relname::text,"
         " pg_catalog.pg_get_expr(r.prqual, r.prrelid), r.prattrs::text"
         " FROM pg_catalog.pg_publication_rel r JOIN pg_catalog.pg_publication p ON p.oid = r.prpubid"
         " JOIN pg_catalog.pg_class c ON c.oid = r.prrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
         " WHERE p.pubname IN (" +
         in +
         ")"
         " UNION ALL"
         " SELECT 's', p.pubname::text, pn.pnnspid::text, NULL, NULL, NULL, NULL"
         " FROM pg_catalog.pg_publication_namespace pn JOIN pg_catalog.pg_publication p ON p.oid = pn.pnpubid"
         " WHERE p.pubname IN (" +
         in + ")";
}

REPLICANT_DECL auto parse_publication_definitions(const pq::query_result& rows) -> result<publication_definitions> {
  publication_definitions out;
  if (rows.rows() > 0 && rows.columns() != 7) return fail(errc::protocol_violation);
  // The publications first, so that the relations and schemas find theirs whatever the row order.
  for (int r = 0; r < rows.rows(); ++r) {
    if (rows.get(r, 0) != "p") continue;
    const auto flags = rows.get(r, 2);
    if (flags.size() != 7) return fail(errc::protocol_violation);
    publication_shape p;
    p.all_tables = flags[0] == '1';
    p.insert = flags[1] == '1';
    p.update = flags[2] == '1';
    p.delete_ = flags[3] == '1';
    p.truncate = flags[4] == '1';
    p.via_root = flags[5] == '1';
    p.generated = flags[6];
    out.insert_or_assign(std::string{rows.get(r, 1)}, std::move(p));
  }
  for (int r = 0; r < rows.rows(); ++r) {
    const auto kind = rows.get(r, 0);
    if (kind == "p") continue;
    const auto owner = out.find(rows.get(r, 1));
    const auto oid = parse_oid(rows.get(r, 2));
    if (owner == out.end() || !oid) return fail(errc::protocol_violation);
    if (kind == "s") {
      owner->second.schemas.insert(*oid);
    } else if (kind == "r") {
      published_relation rel;
      rel.name = table_name{std::string{rows.get(r, 3)}, std::string{rows.get(r, 4)}};
      if (const auto filter = rows.get_optional(r, 5)) rel.row_filter = std::string{*filter};
      if (const auto attrs = rows.get_optional(r, 6)) {
        rel.columns = parse_attnums(*attrs);
        if (!rel.columns) return fail(errc::protocol_violation);
      }
      owner->second.relations.insert_or_assign(*oid, std::move(rel));
    } else {
      return fail(errc::protocol_violation);
    }
  }
  return out;
}

REPLICANT_DECL auto read_publication_definitions(pq::connection& conn, std::span<const std::string> publications)
    -> result<publication_definitions> {
  auto rows = conn.exec(publication_definition_query(publications, conn.server_version()));
  if (!rows) return unexpected(rows.error());
  return parse_publication_definitions(*rows);
}

REPLICANT_DECL auto find_narrowings(const publication_definitions& before, const publication_definitions& now)
    -> std::vector<narrowing> {
  std::vector<narrowing> out;
  for (const auto& [name, was] : before) {
    const auto found = now.find(name);
    if (found == now.end()) continue;
    const publication_shape& is = found->second;
    if (was.all_tables && !is.all_tables) out.push_back({narrowing_kind::all_tables, 0, std::nullopt});
    if ((was.insert && !is.insert) || (was.update && !is.update) || (was.delete_ && !is.delete_) ||
        (was.truncate && !is.truncate)) {
      out.push_back({narrowing_kind::operations, 0, std::nullopt});
    }
    if (was.via_root != is.via_root) out.push_back({narrowing_kind::via_root, 0, std::nullopt});
    if (was.generated != 'n' && is.generated == 'n') {
      out.push_back({narrowing_kind::generated_columns, 0, std::nullopt});
    }
    for (const auto& [oid, rel] : was.relations) {
      const auto still = is.relations.find(oid);
      if (still == is.relations.end()) {
        out.push_back({narrowing_kind::table_removed, oid, rel.name});
        continue;
      }
      const auto& now_rel = still->second;
      // Any filter that is new or different may let fewer rows through; only removing one cannot.
      if (now_rel.row_filter && now_rel.row_filter != rel.row_filter) {
        out.push_back({narrowing_kind::row_filter, oid, now_rel.name});
      }
      // A column list that leaves out a column the old one had (no list: every column).
      if (now_rel.columns && (!rel.columns || !std::includes(now_rel.columns->begin(), now_rel.columns->end(),
                                                             rel.columns->begin(), rel.columns->end()))) {
        out.push_back({narrowing_kind::column_list, oid, now_rel.name});
      }
    }
    for (const auto nsp : was.schemas) {
      if (is.schemas.count(nsp) == 0) out.push_back({narrowing_kind::schema_removed, nsp, std::nullopt});
    }
  }
  return out;
}

REPLICANT_DECL auto still_narrowed(pq::connection& conn, const narrowing& n, std::span<const std::string> publications)
    -> result<bool> {
  std::string sql;
  if (n.kind == narrowing_kind::schema_removed) {
    sql = "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE oid = " + std::to_string(n.oid) + ")";
  } else if (n.kind == narrowing_kind::table_removed) {
    const std::string oid = std::to_string(n.oid);
    sql = "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class WHERE oid = " + oid +
          ") AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_publication_tables t"
          " JOIN pg_catalog.pg_namespace s ON s.nspname = t.schemaname"
          " JOIN pg_catalog.pg_class c ON c.relnamespace = s.oid AND c.relname = t.tablename"
          " WHERE c.oid = " +
          oid + " AND t.pubname IN (" + publication_name_list(publications) + "))";
  } else {
    return true;
  }
  auto rows = conn.exec(sql);
  if (!rows) return unexpected(rows.error());
  if (rows->rows() != 1 || rows->columns() != 1) return fail(errc::protocol_violation);
  return rows->get(0, 0) == "t";
}

REPLICANT_DECL auto check_publication_definitions(pq::connection& conn, std::span<const std::string> publications,
                                                  publication_definitions& baseline) -> result<std::optional<halt>> {
  auto now = read_publication_definitions(conn, publications);
  if (!now) return unexpected(now.error());
  if (*now == baseline) return std::optional<halt>{};
  for (const auto& n : find_narrowings(baseline, *now)) {
    auto real = still_narrowed(conn, n, publications);
    if (!real) return unexpected(real.error());
    if (!*real) continue;
    halt h;
    h.reason = halt_reason::publication_changed;
    h.table = n.table;
    return std::optional<halt>{std::move(h)};
  }
  // Publications that went missing keep their old definition: their return is compared with it.
  for (auto& [name, shape] : *now) baseline.insert_or_assign(name, std::move(shape));
  return std::optional<halt>{};
}

}  // namespace replicant::detail

#endif  // REPLICANT_PIPELINE_DETAIL_IMPL_PUBLICATION_DEFINITION_HPP
