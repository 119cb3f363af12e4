// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTING_DETAIL_SIM_PROBE_HPP
#define REPLICANT_TESTING_DETAIL_SIM_PROBE_HPP

// The simulated server's side connection, a model of replicant::server_probe: it answers the
// session loop's checks from the simulated world (the walsender's sent position is what the
// session's stream has handed so far; the server's WAL ends where the world's does; the one
// publication publishes the same table throughout; a heartbeat returns where the WAL is), and
// fails when the simulator's schedule says: refused (the connection drops and cannot be opened
// again for a while) or a query error (the next connection works). A failed query forgets the
// connection, as the libpq model does. The schedule may also have the publication gone when the
// check looks (dropped, then made again before a new session checks for it at its start). No
// catalog queries: pgoutput needs none.

#include <replicant/core/error.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/pipeline/server_probe.hpp>
#include <replicant/testing/detail/sim_stream.hpp>
#include <replicant/testing/world.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>

namespace replicant::testing::detail {

// How a call on the simulated probe fails, as the schedule says, or what the world has changed.
enum class probe_fault : std::uint8_t {
  none,
  refused,              // the connection is gone: a query fails, and so does opening another
  query_error,          // the query fails (the server refused it); a new connection works
  publication_dropped,  // not the connection's: the publication is gone (publications_exist)
};

// What the session loop asks the probe (for the schedule, which may fail any of them).
enum class probe_call : std::uint8_t { open, heartbeat, walsender_sent, wal_position, publications, shapes };

class sim_probe {
 public:
  using fault_hook = std::function<probe_fault(probe_call)>;

  // Over @p w and the session's @p stream, failing as @p fault says.
  sim_probe(const wal& w, const sim_stream& stream, fault_hook fault)
      : wal_(&w), stream_(&stream), fault_(std::move(fault)) {}

  auto open() -> result<void> {
    if (open_) return {};
    if (fault_(probe_call::open) == probe_fault::refused) return fail(errc::connection_failed);
    open_ = true;
    return {};
  }

  auto heartbeat(const std::string& /*statement*/) -> result<std::optional<lsn>> {
    if (auto ok = ask(probe_call::heartbeat); !ok) return unexpected(ok.error());
    return std::optional<lsn>{wal_->last()};
  }

  auto walsender_sent(int /*pid*/) -> result<std::optional<lsn>> {
    if (auto ok = ask(probe_call::walsender_sent); !ok) return unexpected(ok.error());
    return std::optional<lsn>{stream_->sent()};
  }

  auto wal_position() -> result<lsn> {
    if (auto ok = ask(probe_call::wal_position); !ok) return unexpected(ok.error());
    return wal_->last();
  }

  auto publications_exist(std::span<const std::string> /*names*/) -> result<bool> {
    auto answer = ask(probe_call::publications);
    if (!answer) return unexpected(answer.error());
    return *answer != probe_fault::publication_dropped;
  }

  auto check_publication_shapes(std::span<const std::string> /*names*/,
                                replicant::publication_definitions& /*baseline*/) -> result<std::optional<halt>> {
    if (auto ok = ask(probe_call::shapes); !ok) return unexpected(ok.error());
    return std::optional<halt>{};
  }

  auto close() noexcept -> void { open_ = false; }

 protected:
  [[nodiscard]] auto world_wal() const noexcept -> const wal& { return *wal_; }

  // One query: fails as the schedule says, and then forgets the connection; else what the world
  // has changed that the query sees (none, or a publication dropped).
  auto ask(probe_call call) -> result<probe_fault> {
    if (!open_) return fail(errc::connection_failed);
    const auto answer = fault_(call);
    switch (answer) {
      case probe_fault::refused: open_ = false; return fail(errc::connection_failed);
      case probe_fault::query_error: open_ = false; return fail(errc::server_error);
      case probe_fault::none:
      case probe_fault::publication_dropped: break;
    }
    return answer;
  }

 private:
  const wal* wal_;
  const sim_stream* stream_;
  fault_hook fault_;
  bool open_ = false;
};

static_assert(server_probe<sim_probe>);

}  // namespace replicant::testing::detail

#endif  // REPLICANT_TESTING_DETAIL_SIM_PROBE_HPP
