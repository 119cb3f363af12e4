// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_DETAIL_PQ_PROBE_HPP
#define REPLICANT_PIPELINE_DETAIL_PQ_PROBE_HPP

// The libpq model of replicant::server_probe: an ordinary session of its own for the periodic work
// beside the stream (heartbeats, publication checks, what the server sent, where its WAL is),
// opened when first needed and again after a failure, so that a slow or failed query never touches
// the replication connection. A stop cancels what it is doing (the pipeline's stop descriptor).

#include <replicant/core/error.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/decoder/policy.hpp>
#include <replicant/pipeline/detail/pq_server.hpp>
#include <replicant/pipeline/detail/publication_definition.hpp>
#include <replicant/pipeline/server_probe.hpp>
#include <replicant/pq/connection.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace replicant::detail {

// Runs a decoder's catalog queries on @p conn (the replication connection at connect, or the
// probe connection): every field as text, NULL as empty. Only the SQLSTATE of a failure is kept.
inline auto decoder_query(pq::connection& conn) -> query_function {
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

class pq_probe {
 public:
  pq_probe() = default;
  // Connects to @p conninfo within @p connect_timeout; @p stop_fd, once readable, cancels a connect
  // or a query in progress.
  pq_probe(std::string conninfo, std::chrono::milliseconds connect_timeout, int stop_fd)
      : conninfo_(std::move(conninfo)) {
    options_.timeout = connect_timeout;
    options_.cancel_fd = stop_fd;
    options_.command_cancel_fd = stop_fd;
    options_.command_timeout = std::min(connect_timeout, std::chrono::milliseconds(std::chrono::seconds(10)));
  }

  auto open() -> result<void> {
    if (conn_) return {};
    auto opened = pq::connection::open(conninfo_, pq::session_kind::normal, options_);
    if (!opened) return unexpected(opened.error());
    conn_.emplace(std::move(*opened));
    return {};
  }

  auto heartbeat(const std::string& statement) -> result<std::optional<lsn>> {
    auto beat = exec(statement);
    if (!beat) return unexpected(beat.error());
    std::optional<lsn> at;
    if (beat->rows() > 0 && beat->columns() > 0) {
      if (auto parsed = parse_lsn(beat->get(0, 0))) at = *parsed;
    }
    return at;
  }

  // pg_stat_replication's view, not the keepalives (which travel in the stream, and which a
  // damaged network could alter): the idle advance never passes a position both name.
  auto walsender_sent(int pid) -> result<std::optional<lsn>> {
    auto found = exec("SELECT sent_lsn FROM pg_stat_replication WHERE pid = " + std::to_string(pid));
    if (!found) return unexpected(found.error());
    if (found->rows() != 1 || found->columns() != 1 || found->is_null(0, 0)) return std::optional<lsn>{};
    auto sent = parse_lsn(found->get(0, 0));
    return sent ? std::optional<lsn>{*sent} : std::nullopt;
  }

  // An answer that is not one position is a protocol violation (the connection is kept).
  auto wal_position() -> result<lsn> {
    auto found =
        exec("SELECT CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END");
    if (!found) return unexpected(found.error());
    if (found->rows() != 1 || found->columns() != 1 || found->is_null(0, 0)) return fail(errc::protocol_violation);
    auto at = parse_lsn(found->get(0, 0));
    if (!at) return fail(errc::protocol_violation);
    return *at;
  }

  auto publications_exist(std::span<const std::string> names) -> result<bool> {
    if (!conn_) return fail(errc::connection_failed);
    return forget_on_failure(detail::publications_exist(*conn_, names));
  }

  auto check_publication_shapes(std::span<const std::string> names, publication_definitions& baseline)
      -> result<std::optional<halt>> {
    if (!conn_) return fail(errc::connection_failed);
    return forget_on_failure(check_publication_definitions(*conn_, names, baseline));
  }

  auto close() noexcept -> void { conn_.reset(); }

  // The decoder's catalog queries, on this connection (open).
  auto catalog() -> query_function { return decoder_query(*conn_); }

 private:
  // One statement on the open connection; a failure forgets the connection.
  auto exec(const std::string& sql) -> result<pq::query_result> {
    if (!conn_) return fail(errc::connection_failed);
    return forget_on_failure(conn_->exec(sql));
  }

  template <class T>
  auto forget_on_failure(result<T> r) -> result<T> {
    if (!r) conn_.reset();
    return r;
  }

  std::string conninfo_;
  pq::connect_options options_{};
  std::optional<pq::connection> conn_;
};

static_assert(catalog_probe<pq_probe>);

}  // namespace replicant::detail

#endif  // REPLICANT_PIPELINE_DETAIL_PQ_PROBE_HPP
