// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTING_DETAIL_SIM_SERVER_HPP
#define REPLICANT_TESTING_DETAIL_SIM_SERVER_HPP

// The simulated server's replication connection, a model of replicant::server_session: the
// connect chain asks it what a PostgreSQL 15 primary would answer about the world's WAL and the
// slot, creates the slot (where the world's WAL begins, so that the slot is sent all of it), and
// starts streaming from the greater of the requested position and the slot's, as the server does.
// The slot is the simulator's: it survives every crash of the pipeline.

#include <replicant/core/error.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/pipeline/server_session.hpp>
#include <replicant/testing/detail/sim_stream.hpp>
#include <replicant/testing/world.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace replicant::testing::detail {

// The slot as the server keeps it.
struct sim_slot {
  bool exists = false;
  lsn confirmed{};  // confirmed_flush_lsn
};

class sim_server {
 public:
  using stream_type = sim_stream;
  using time_point = std::chrono::steady_clock::time_point;

  // With @p keepalives_ahead, every keepalive the stream sends reports where the world's WAL ends
  // rather than what was sent (a network that damages them).
  sim_server(const wal& w, sim_slot& slot, sim_stream::hooks hooks, time_point& now, bool keepalives_ahead = false)
      : wal_(w), slot_(slot), hooks_(std::move(hooks)), now_(now), keepalives_ahead_(keepalives_ahead) {}

  auto identify() -> result<session_identity> {
    return session_identity{
        .system_identifier = "7000000000000000001", .timeline = 1, .xlogpos = wal_.last(), .database = "simulated"};
  }
  [[nodiscard]] auto server_version() const noexcept -> std::uint32_t { return wal_.server_version(); }
  auto recovery() -> result<server_recovery> { return server_recovery{}; }

  auto find_slot(std::string_view /*name*/) -> result<std::optional<slot_facts>> {
    if (!slot_.exists) return std::optional<slot_facts>{};
    slot_facts facts;
    facts.logical = true;
    facts.plugin = "pgoutput";
    facts.confirmed_flush = slot_.confirmed;
    return std::optional<slot_facts>{std::move(facts)};
  }

  // The world has one publication, and publishes the same table throughout.
  auto publications_exist(std::span<const std::string> /*names*/) -> result<bool> { return true; }
  auto publication_shapes(std::span<const std::string> /*names*/) -> result<replicant::publication_definitions> {
    return replicant::publication_definitions{};
  }
  auto check_publication_shapes(std::span<const std::string> /*names*/,
                                replicant::publication_definitions& /*baseline*/) -> result<std::optional<halt>> {
    return std::optional<halt>{};
  }

  auto create_slot(const slot_request& /*request*/) -> result<created_slot> {
    slot_ = {.exists = true, .confirmed = wal::first()};
    return created_slot{.consistent_point = wal::first(), .snapshot_name = {}};
  }

  auto start(const stream_request& request, const pq::stream_options& /*options*/) && -> result<stream_type> {
    if (!slot_.exists) return fail(errc::server_error);
    const auto ahead = keepalives_ahead_ ? std::optional<lsn>{wal_.last()} : std::nullopt;
    return sim_stream{sim_stream::frames_of(wal_.session_from(std::max(slot_.confirmed, request.at)), ahead), hooks_,
                      now_, reported_};
  }

  [[nodiscard]] auto last_sqlstate() const -> std::string { return {}; }

  // The highest flush position a status update of this connection reported.
  [[nodiscard]] auto reported() const noexcept -> lsn { return lsn{reported_.load()}; }

 private:
  const wal& wal_;
  sim_slot& slot_;
  sim_stream::hooks hooks_;
  time_point& now_;
  bool keepalives_ahead_;
  std::atomic<std::uint64_t> reported_{0};
};

static_assert(server_session<sim_server>);

}  // namespace replicant::testing::detail

#endif  // REPLICANT_TESTING_DETAIL_SIM_SERVER_HPP
