// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_DETAIL_PQ_PROBE_HPP
#define REPLICANT_PIPELINE_DETAIL_PQ_PROBE_HPP

// The libpq model of replicant::server_probe: an ordinary session of its own for the periodic work
// beside the stream (heartbeats, publication checks, what the server sent, where its WAL is),
// opened when first needed and again after a failure, so that a slow or failed query never touches
// the replication connection. A stop cancels what it is doing (the pipeline's stop descriptor).

#include <replicant/core/detail/config.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/decoder/policy.hpp>
#include <replicant/pipeline/detail/publication_definition.hpp>
#include <replicant/pipeline/server_probe.hpp>
#include <replicant/pq/connection.hpp>

#include <chrono>
#include <optional>
#include <span>
#include <string>

namespace replicant::detail {

// Runs a decoder's catalog queries on @p conn (the replication connection at connect, or the
// probe connection): every field as text, NULL as empty. Only the SQLSTATE of a failure is kept.
REPLICANT_DECL auto decoder_query(pq::connection& conn) -> query_function;

class pq_probe {
 public:
  pq_probe() = default;
  // Connects to @p conninfo within @p connect_timeout; @p stop_fd, once readable, cancels a connect
  // or a query in progress.
  pq_probe(std::string conninfo, std::chrono::milliseconds connect_timeout, int stop_fd);

  auto open() -> result<void>;

  auto heartbeat(const std::string& statement) -> result<std::optional<lsn>>;

  // pg_stat_replication's view, not the keepalives (which travel in the stream, and which a
  // damaged network could alter): the idle advance never passes a position both name.
  auto walsender_sent(int pid) -> result<std::optional<lsn>>;

  // An answer that is not one position is a protocol violation (the connection is kept).
  auto wal_position() -> result<lsn>;

  auto publications_exist(std::span<const std::string> names) -> result<bool>;

  auto check_publication_shapes(std::span<const std::string> names, publication_definitions& baseline)
      -> result<std::optional<halt>>;

  auto close() noexcept -> void { conn_.reset(); }

  // The decoder's catalog queries, on this connection (open).
  auto catalog() -> query_function { return decoder_query(*conn_); }

 private:
  // One statement on the open connection; a failure forgets the connection.
  auto exec(const std::string& sql) -> result<pq::query_result>;

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

// The queries' bodies: in every unit header-only, in the one unit that includes <replicant/src.hpp>
// with REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/pipeline/detail/impl/pq_probe.hpp>
#endif

#endif  // REPLICANT_PIPELINE_DETAIL_PQ_PROBE_HPP
