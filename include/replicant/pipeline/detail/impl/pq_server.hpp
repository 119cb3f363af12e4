// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_DETAIL_IMPL_PQ_SERVER_HPP
#define REPLICANT_PIPELINE_DETAIL_IMPL_PQ_SERVER_HPP

// Out-of-line bodies of detail::pq_server, the libpq model of server_session: the SQL and
// replication commands of the connect chain. Included at the bottom of
// <replicant/pipeline/detail/pq_server.hpp> (which it includes nothing of back); with
// REPLICANT_SEPARATE_COMPILATION only by <replicant/pipeline/src.hpp>.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/pipeline/detail/slot_state.hpp>

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

REPLICANT_DECL auto read_int(std::string_view text) noexcept -> std::optional<std::int64_t> {
  std::int64_t v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc{} || r.ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

REPLICANT_DECL auto publications_exist(pq::connection& conn, std::span<const std::string> names) -> result<bool> {
  std::string pubs;
  for (const auto& p : names) {
    if (!pubs.empty()) pubs += ", ";
    pubs += quote_literal(p).value();
  }
  auto found = conn.exec("SELECT count(DISTINCT pubname) FROM pg_publication WHERE pubname IN (" + pubs + ")");
  if (!found) return unexpected(found.error());
  std::vector<std::string_view> sorted(names.begin(), names.end());
  std::sort(sorted.begin(), sorted.end());
  const auto distinct = static_cast<std::int64_t>(std::unique(sorted.begin(), sorted.end()) - sorted.begin());
  return read_int(found->get(0, 0)).value_or(-1) == distinct;
}

REPLICANT_DECL auto pq_server::identify() -> result<session_identity> {
  auto ident = conn_.exec("IDENTIFY_SYSTEM");
  if (!ident) return unexpected(ident.error());
  if (ident->rows() != 1 || ident->columns() < 4) return fail(errc::protocol_violation);
  session_identity identity;
  identity.system_identifier = std::string{ident->get(0, 0)};
  identity.timeline = read_int(ident->get(0, 1)).value_or(0);
  identity.xlogpos = parse_lsn(ident->get(0, 2)).value_or(lsn{});
  identity.database = std::string{ident->get(0, 3)};
  return identity;
}

REPLICANT_DECL auto pq_server::recovery() -> result<server_recovery> {
  auto row = conn_.exec("SELECT pg_is_in_recovery(), current_setting('hot_standby_feedback')");
  if (!row) return unexpected(row.error());
  if (row->rows() != 1 || row->columns() != 2) return fail(errc::protocol_violation);
  return server_recovery{.in_recovery = row->get(0, 0) == "t", .hot_standby_feedback = row->get(0, 1) == "on"};
}

REPLICANT_DECL auto pq_server::find_slot(std::string_view name) -> result<std::optional<slot_facts>> {
  const auto version = server_version();
  std::string query = "SELECT slot_type, plugin, confirmed_flush_lsn, wal_status, restart_lsn";
  if (version >= 160000) query += ", conflicting";
  if (version >= 170000) query += ", invalidation_reason, synced, failover";
  query += " FROM pg_catalog.pg_replication_slots WHERE slot_name = " + quote_literal(name).value();
  auto row = conn_.exec(query);
  if (!row) return unexpected(row.error());
  if (row->rows() == 0) return std::optional<slot_facts>{};
  slot_facts facts;
  facts.logical = row->get(0, 0) == "logical";
  if (!row->is_null(0, 1)) facts.plugin = std::string{row->get(0, 1)};
  if (auto at = parse_lsn(row->get(0, 2))) facts.confirmed_flush = *at;
  slot_invalidation_columns columns{.wal_status = row->get_optional(0, 3), .restart_lsn = row->get_optional(0, 4)};
  if (version >= 160000) columns.conflicting = row->get_optional(0, 5);
  if (version >= 170000) {
    columns.invalidation_reason = row->get_optional(0, 6);
    facts.synced = row->get(0, 7) == "t";
    facts.failover = row->get(0, 8) == "t";
  }
  if (facts.logical) facts.invalidation = slot_invalidation_of(columns);
  return facts;
}

REPLICANT_DECL auto pq_server::create_slot(const slot_request& r) -> result<created_slot> {
  std::string create = "CREATE_REPLICATION_SLOT " + quote_identifier(r.name).value() + " LOGICAL " +
                       std::string{r.plugin} + " (SNAPSHOT '" + (r.export_snapshot ? "export" : "nothing") + "'";
  if (r.failover) create += ", FAILOVER";
  if (r.two_phase) create += ", TWO_PHASE";
  create += ")";
  auto created = conn_.exec(create);
  if (!created) return unexpected(created.error());
  return created_slot{.consistent_point = parse_lsn(created->get(0, 1)).value_or(lsn{}),
                      .snapshot_name = std::string{created->get(0, 2)}};
}

REPLICANT_DECL auto pq_server::start(const stream_request& r,
                                     const pq::stream_options& options) && -> result<stream_type> {
  const std::string command = "START_REPLICATION SLOT " + quote_identifier(r.slot).value() + " LOGICAL " +
                              to_string(r.at) + " (" + std::string{r.options} + ")";
  return pq::replication_stream::start(std::move(conn_), command, options);
}

}  // namespace replicant::detail

#endif  // REPLICANT_PIPELINE_DETAIL_IMPL_PQ_SERVER_HPP
