// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_DETAIL_CONNECT_ATTEMPTS_HPP
#define REPLICANT_PIPELINE_DETAIL_CONNECT_ATTEMPTS_HPP

// How the connects of one run have gone so far: what bounds the retries of refused commands, what
// paces the reconnects, and whether the run ever reached the server (a run stopped before it did
// reports connection_failed rather than success).

#include <chrono>
#include <cstdint>

namespace replicant::detail {

struct connect_attempts {
  std::uint32_t command_errors = 0;   // commands the server refused, in a row, before any frame came
  std::uint32_t failed = 0;           // connects in a row that did not reach the server
  bool connected = false;             // whether any connect of the run reached the server
  std::chrono::milliseconds delay{};  // the wait before the next connect, doubled after each

  // Whether the run was stopped before any connect reached the server, after one had failed.
  [[nodiscard]] auto never_connected() const noexcept -> bool { return !connected && failed > 0; }
};

}  // namespace replicant::detail

#endif  // REPLICANT_PIPELINE_DETAIL_CONNECT_ATTEMPTS_HPP
