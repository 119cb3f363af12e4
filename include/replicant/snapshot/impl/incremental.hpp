// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SNAPSHOT_IMPL_INCREMENTAL_HPP
#define REPLICANT_SNAPSHOT_IMPL_INCREMENTAL_HPP

// Out-of-line bodies of replicant::incremental_snapshot and replicant::incremental_chunk. Included
// at the bottom of <replicant/snapshot/incremental.hpp> (which it includes nothing of back); with
// REPLICANT_SEPARATE_COMPILATION only by <replicant/snapshot/src.hpp>, which compiles them once.
//
// The catalog is read in one REPEATABLE READ transaction, so that the tables, their column lists,
// row filters, shapes and keys are of one moment. Every text that comes back is a name, a number or
// server-written SQL (a row filter); none of it ever reaches an error, and numbers that do not
// parse are a protocol_violation rather than a guess. The shape rules are those of the
// point-in-time reader (impl/point_in_time_snapshot.hpp): both must describe a table exactly as
// pgoutput does.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/model/tuple.hpp>
#include <replicant/pq/copy.hpp>
#include <replicant/snapshot/detail/copy_text.hpp>
#include <replicant/snapshot/detail/decimal.hpp>
#include <replicant/snapshot/detail/progress_codec.hpp>
#include <replicant/snapshot/detail/published_tables.hpp>

#include <algorithm>
#include <optional>
#include <utility>

namespace replicant {
namespace detail {

// SQL for a text that changes whenever the shape of table @p oid does (its columns' numbers, names,
// types and modifiers, and its replica identity), and is NULL once the table is gone. Compared at
// every chunk against the listing's: a chunk read in a shape other than the listed one is not
// delivered.
[[nodiscard]] REPLICANT_DECL auto shape_signature_sql(const std::string& oid) -> std::string {
  // Aliases of their own: @p oid may name a column of the enclosing query.
  return "(SELECT pg_catalog.string_agg(sa.attnum::pg_catalog.text || ' ' || sa.atttypid::pg_catalog.text || ' ' ||"
         " sa.atttypmod::pg_catalog.text || ' ' || sa.attgenerated::pg_catalog.text || ' ' ||"
         " sa.attname::pg_catalog.text, ',' ORDER BY sa.attnum) FROM pg_catalog.pg_attribute sa"
         " WHERE sa.attrelid = " +
         oid +
         " AND sa.attnum > 0 AND NOT sa.attisdropped) || '/' ||"
         " (SELECT sc.relreplident::pg_catalog.text FROM pg_catalog.pg_class sc WHERE sc.oid = " +
         oid + ")";
}

}  // namespace detail

REPLICANT_DECL auto incremental_chunk::clear() noexcept -> void {
  snapshot.clear();
  tuples.clear();
  row_ends.clear();
  keys.clear();
  last_for_table = false;
  reshaped = false;
}

REPLICANT_DECL auto incremental_snapshot::open(pq::connection& conn, std::span<const std::string> publications,
                                               const incremental_snapshot_options& options)
    -> result<incremental_snapshot> {
  if (options.chunk_rows == 0 || options.chunk_bytes == 0 || publications.empty()) return fail(errc::invalid_options);
  if (!conn.is_open()) return fail(errc::connection_failed);
  // Column lists, row filters and pg_current_snapshot() are all there from 15 on.
  if (conn.server_version() < 150000) return fail(errc::unsupported_server);
  incremental_snapshot s{conn, options};
  if (auto begun = conn.exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"); !begun)
    return unexpected(begun.error());
  auto listed = s.list_tables(publications);
  if (!listed) {
    static_cast<void>(pq::detail::rollback_quietly(conn));
    return unexpected(listed.error());
  }
  if (auto committed = conn.exec("COMMIT"); !committed) return unexpected(committed.error());
  return s;
}

REPLICANT_DECL auto incremental_snapshot::list_tables(std::span<const std::string> publications) -> result<void> {
  // Beyond what the point-in-time reader lists: the key, as the attribute numbers of the primary
  // key, or of the replica identity index under USING INDEX, key columns only (INCLUDE columns are
  // not part of the order); and the table's shape, to compare every chunk against.
  const std::string extra_columns[] = {
      "(SELECT pg_catalog.string_agg(k.attnum::pg_catalog.text, ' ' ORDER BY k.ord)"
      "    FROM pg_catalog.pg_index i, pg_catalog.unnest(i.indkey::pg_catalog.int2[]) WITH ORDINALITY AS k(attnum, ord)"
      "   WHERE i.indrelid = c.oid AND i.indislive AND i.indisvalid AND i.indisunique AND i.indimmediate"
      "     AND i.indpred IS NULL AND i.indexprs IS NULL AND k.ord <= i.indnkeyatts"
      "     AND CASE c.relreplident WHEN 'i' THEN i.indisreplident ELSE i.indisprimary END)",
      detail::shape_signature_sql("c.oid")};
  auto listed = detail::read_published_tables(*conn_, publications, extra_columns);
  if (!listed) return unexpected(listed.error());
  tables_.reserve(listed->size());
  statements_.reserve(listed->size());
  for (detail::published_table& t : *listed) {
    const auto key = detail::parse_attnum_list(t.extra[0]);
    if (!key) return fail(errc::protocol_violation);
    statement st;
    st.select = std::move(t.select);
    st.filter = std::move(t.filter);
    st.oid = std::to_string(t.relation->oid);
    st.shape = std::move(t.extra[1]);
    // The key, by position in the published columns. A key column left out of the column list
    // cannot be matched against streamed rows, so such a table is read whole, like one without a
    // key.
    incremental_table table;
    for (const std::int16_t number : *key) {
      const auto at = std::find(t.attnums.begin(), t.attnums.end(), number);
      if (at == t.attnums.end()) {
        table.key_columns.clear();
        break;
      }
      table.key_columns.push_back(static_cast<std::size_t>(at - t.attnums.begin()));
    }
    for (const std::size_t k : table.key_columns) {
      const auto quoted = quote_identifier(t.relation->columns[k].name).value();  // quoted when listed
      st.key += st.key.empty() ? "(" : ", ";
      st.key += quoted;
      if (!st.order.empty()) st.order += ", ";
      st.order += quoted;
    }
    if (!st.key.empty()) st.key += ")";
    table.row_filtered = !st.filter.empty();
    table.relation = std::move(t.relation);
    tables_.push_back(std::move(table));
    statements_.push_back(std::move(st));
  }
  return {};
}

REPLICANT_DECL auto incremental_snapshot::emit_watermark(std::string_view content) -> result<lsn> {
  const auto prefix = quote_literal(watermark_prefix);
  const auto text = quote_literal(content);
  if (!prefix) return unexpected(prefix.error());
  if (!text) return unexpected(text.error());
  // Transactional, and outside any transaction: the message is its own transaction, which the
  // stream carries at its commit, ordered with every other commit (PROTOCOL.md §6.3).
  auto r = conn_->exec("SELECT pg_catalog.pg_logical_emit_message(true, " + *prefix + ", " + *text + ")");
  if (!r) return unexpected(r.error());
  if (r->rows() != 1 || r->columns() != 1) return fail(errc::protocol_violation);
  auto at = parse_lsn(r->get(0, 0));
  if (!at) return fail(errc::protocol_violation);
  return *at;
}

REPLICANT_DECL auto incremental_snapshot::read_chunk(std::size_t table, std::string_view after_key,
                                                     incremental_chunk& out) -> result<void> {
  out.clear();
  out.table = table;
  if (table >= tables_.size()) return fail(errc::invalid_options);
  const incremental_table& t = tables_[table];
  const statement& st = statements_[table];
  std::string command = "COPY (" + st.select;
  std::string where = st.filter.empty() ? std::string{} : "(" + st.filter + ")";
  if (t.keyed()) {
    if (!after_key.empty()) {
      const auto values = detail::decode_key(after_key);
      if (!values || values->size() != t.key_columns.size()) return fail(errc::invalid_options);
      // A row comparison against untyped literals: each takes its column's type, and the order is
      // the ORDER BY's, column after column (both use the columns' collations).
      std::string bound = "(";
      for (std::size_t i = 0; i < values->size(); ++i) {
        if (i != 0) bound += ", ";
        bound += detail::escape_string_literal((*values)[i]);
      }
      bound += ")";
      if (!where.empty()) where += " AND ";
      where += st.key + " > " + bound;
    }
  }
  if (!where.empty()) command += " WHERE " + where;
  if (t.keyed()) command += " ORDER BY " + st.order + " LIMIT " + std::to_string(options_.chunk_rows);
  command += ") TO STDOUT";

  // The snapshot of a REPEATABLE READ transaction is taken by its first statement, which is
  // therefore the one that reports it: the COPY reads under exactly the snapshot kept. The same
  // statement checks that the table still has the shape it was listed with.
  auto begun =
      conn_->exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT pg_catalog.pg_current_snapshot(), " +
                  detail::shape_signature_sql(st.oid));
  if (!begun) {
    static_cast<void>(pq::detail::rollback_quietly(*conn_));
    return unexpected(begun.error());
  }
  if (begun->rows() != 1 || begun->columns() != 2) {
    static_cast<void>(pq::detail::rollback_quietly(*conn_));
    return fail(errc::protocol_violation);
  }
  if (begun->get_optional(0, 1) != std::optional<std::string_view>{st.shape}) {
    out.reshaped = true;
    if (auto ended = conn_->exec("ROLLBACK"); !ended) return unexpected(ended.error());
    return {};
  }
  out.snapshot = std::string{begun->get(0, 0)};
  if (auto copied = copy_rows(command, table, t.keyed(), out); !copied) {
    static_cast<void>(pq::detail::rollback_quietly(*conn_));
    out.clear();
    return copied;
  }
  if (auto committed = conn_->exec("COMMIT"); !committed) {
    out.clear();
    return unexpected(committed.error());
  }
  return {};
}

REPLICANT_DECL auto incremental_snapshot::copy_rows(const std::string& command, std::size_t table, bool bounded,
                                                    incremental_chunk& out) -> result<void> {
  const incremental_table& t = tables_[table];
  const std::size_t columns = t.relation->columns.size();
  auto copy = pq::copy_out::start(*conn_, command, options_.cancel_fd);
  if (!copy) return unexpected(copy.error());
  bool cut = false;  // the byte bound ended the chunk early; later rows are read again next time
  std::size_t received = 0;
  std::vector<std::string_view> key_text;
  for (;;) {
    auto line = copy->next();
    if (!line) return unexpected(line.error());
    if (!*line) break;
    ++received;
    if (cut) continue;
    const std::size_t begin = out.tuples.size();
    if (const auto ec = detail::copy_text_row_to_tuple(**line, columns, out.tuples); ec) return unexpected(ec);
    out.row_ends.push_back(out.tuples.size());
    if (bounded) {
      const auto tuple =
          parse_tuple_data(std::span<const std::byte>{out.tuples.data() + begin, out.tuples.size() - begin});
      if (!tuple) return unexpected(tuple.error());
      key_text.assign(t.key_columns.size(), std::string_view{});
      std::size_t index = 0;
      for (const tuple_column c : *tuple) {
        for (std::size_t k = 0; k < t.key_columns.size(); ++k) {
          if (t.key_columns[k] != index) continue;
          if (c.is_null()) return fail(errc::protocol_violation);  // key columns are NOT NULL
          key_text[k] = c.text();
        }
        ++index;
      }
      out.keys.push_back(detail::encode_key(key_text));
      cut = out.tuples.size() >= options_.chunk_bytes;
    }
  }
  out.last_for_table = !bounded || (!cut && received < options_.chunk_rows);
  return {};
}

}  // namespace replicant

#endif  // REPLICANT_SNAPSHOT_IMPL_INCREMENTAL_HPP
