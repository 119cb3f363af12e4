// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_DETAIL_PQ_SERVER_HPP
#define REPLICANT_PIPELINE_DETAIL_PQ_SERVER_HPP

// The libpq model of replicant::server_session: the connect chain's questions as the SQL and
// replication commands a real server answers, on one replication connection.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/result.hpp>
#include <replicant/pipeline/detail/publication_definition.hpp>
#include <replicant/pipeline/server_session.hpp>
#include <replicant/pq/connection.hpp>
#include <replicant/pq/replication_stream.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace replicant::detail {

// @p text as a whole decimal number; nothing when it is not one.
REPLICANT_DECL auto read_int(std::string_view text) noexcept -> std::optional<std::int64_t>;

// Whether every publication in @p names exists, asked on @p conn (a walsender or an ordinary session).
REPLICANT_DECL auto publications_exist(pq::connection& conn, std::span<const std::string> names) -> result<bool>;

class pq_server {
 public:
  using stream_type = pq::replication_stream;

  explicit pq_server(pq::connection conn) noexcept : conn_(std::move(conn)) {}

  auto identify() -> result<session_identity>;

  [[nodiscard]] auto server_version() const noexcept -> std::uint32_t {
    return static_cast<std::uint32_t>(conn_.server_version());
  }

  auto recovery() -> result<server_recovery>;

  // One row of any type (a physical slot of the name matters too), with the columns this version has.
  auto find_slot(std::string_view name) -> result<std::optional<slot_facts>>;

  auto publications_exist(std::span<const std::string> names) -> result<bool> {
    return detail::publications_exist(conn_, names);
  }
  auto publication_shapes(std::span<const std::string> names) -> result<publication_definitions> {
    return read_publication_definitions(conn_, names);
  }
  auto check_publication_shapes(std::span<const std::string> names, publication_definitions& baseline)
      -> result<std::optional<halt>> {
    return check_publication_definitions(conn_, names, baseline);
  }

  auto create_slot(const slot_request& r) -> result<created_slot>;

  // On failure the connection is left as it was (replication_stream::start moves it only on success).
  auto start(const stream_request& r, const pq::stream_options& options) && -> result<stream_type>;

  [[nodiscard]] auto last_sqlstate() const -> std::string { return conn_.last_error().sqlstate; }

  // The ordinary SQL a decoder that reads the catalog asks for (wal2json, pglogical).
  auto sql() noexcept -> pq::connection& { return conn_; }

 private:
  pq::connection conn_;
};

static_assert(server_session<pq_server>);

}  // namespace replicant::detail

// The commands' bodies: in every unit header-only, in the one unit that includes
// <replicant/src.hpp> with REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/pipeline/detail/impl/pq_server.hpp>
#endif

#endif  // REPLICANT_PIPELINE_DETAIL_PQ_SERVER_HPP
