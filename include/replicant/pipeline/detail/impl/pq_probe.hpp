// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_DETAIL_IMPL_PQ_PROBE_HPP
#define REPLICANT_PIPELINE_DETAIL_IMPL_PQ_PROBE_HPP

// Out-of-line bodies of detail::pq_probe, the libpq model of server_probe, and of the decoders'
// catalog queries on a connection. Included at the bottom of
// <replicant/pipeline/detail/pq_probe.hpp> (which it includes nothing of back); with
// REPLICANT_SEPARATE_COMPILATION only by <replicant/pipeline/src.hpp>.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>
#include <replicant/pipeline/detail/pq_server.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace replicant::detail {

REPLICANT_DECL auto decoder_query(pq::connection& conn) -> query_function {
  return [&conn](const std::string& sql, const std::function<void(query_row)>& visit) -> result<void> {
    auto rows = conn.exec(sql);
    if (!rows) return unexpected(rows.error());
    std::vector<std::string_view> fields;
    for (int r = 0; r < rows->rows(); ++r) {
      fields.clear();
      for (int c = 0; c < rows->columns(); ++c) fields.push_back(rows->get(r, c));
      visit(fields);
    }
    return {};
  };
}

REPLICANT_DECL pq_probe::pq_probe(std::string conninfo, std::chrono::milliseconds connect_timeout, int stop_fd)
    : conninfo_(std::move(conninfo)) {
  options_.timeout = connect_timeout;
  options_.cancel_fd = stop_fd;
  options_.command_cancel_fd = stop_fd;
  options_.command_timeout = std::min(connect_timeout, std::chrono::milliseconds(std::chrono::seconds(10)));
}

REPLICANT_DECL auto pq_probe::open() -> result<void> {
  if (conn_) return {};
  auto opened = pq::connection::open(conninfo_, pq::session_kind::normal, options_);
  if (!opened) return unexpected(opened.error());
  conn_.emplace(std::move(*opened));
  return {};
}

REPLICANT_DECL auto pq_probe::heartbeat(const std::string& statement) -> result<std::optional<lsn>> {
  auto beat = exec(statement);
  if (!beat) return unexpected(beat.error());
  std::optional<lsn> at;
  if (beat->rows() > 0 && beat->columns() > 0) {
    if (auto parsed = parse_lsn(beat->get(0, 0))) at = *parsed;
  }
  return at;
}

REPLICANT_DECL auto pq_probe::walsender_sent(int pid) -> result<std::optional<lsn>> {
  auto found = exec("SELECT sent_lsn FROM pg_stat_replication WHERE pid = " + std::to_string(pid));
  if (!found) return unexpected(found.error());
  if (found->rows() != 1 || found->columns() != 1 || found->is_null(0, 0)) return std::optional<lsn>{};
  auto sent = parse_lsn(found->get(0, 0));
  return sent ? std::optional<lsn>{*sent} : std::nullopt;
}

REPLICANT_DECL auto pq_probe::wal_position() -> result<lsn> {
  auto found = exec("SELECT CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END");
  if (!found) return unexpected(found.error());
  if (found->rows() != 1 || found->columns() != 1 || found->is_null(0, 0)) return fail(errc::protocol_violation);
  auto at = parse_lsn(found->get(0, 0));
  if (!at) return fail(errc::protocol_violation);
  return *at;
}

REPLICANT_DECL auto pq_probe::publications_exist(std::span<const std::string> names) -> result<bool> {
  if (!conn_) return fail(errc::connection_failed);
  return forget_on_failure(detail::publications_exist(*conn_, names));
}

REPLICANT_DECL auto pq_probe::check_publication_shapes(std::span<const std::string> names,
                                                       publication_definitions& baseline)
    -> result<std::optional<halt>> {
  if (!conn_) return fail(errc::connection_failed);
  return forget_on_failure(check_publication_definitions(*conn_, names, baseline));
}

REPLICANT_DECL auto pq_probe::exec(const std::string& sql) -> result<pq::query_result> {
  if (!conn_) return fail(errc::connection_failed);
  return forget_on_failure(conn_->exec(sql));
}

}  // namespace replicant::detail

#endif  // REPLICANT_PIPELINE_DETAIL_IMPL_PQ_PROBE_HPP
