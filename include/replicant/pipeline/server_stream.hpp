// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_SERVER_STREAM_HPP
#define REPLICANT_PIPELINE_SERVER_STREAM_HPP

/// @file
/// replicant::server_stream: the engine's seam to the server while it streams. The session loop
/// reads frames and sends status updates through it, and nothing else: `pq::replication_stream`
/// (libpq's CopyBoth) is one model, the simulator's walsender (replicant/testing/) another, so the
/// whole session loop runs in-process under a seeded schedule. The libpq model is what the
/// pipeline uses; the concept costs it nothing (every call is resolved at compile time).

#include <replicant/core/result.hpp>
#include <replicant/pq/replication_stream.hpp>

#include <chrono>
#include <concepts>
#include <cstddef>
#include <span>
#include <string_view>
#include <utility>

namespace replicant {

/**
 * A streaming session with the server, as the session loop uses it.
 *
 * | Expression | Type | Semantics |
 * |---|---|---|
 * | `S::frame_type` | a movable type with `bytes()` giving `std::span<const std::byte>` | One CopyData payload, owned. |
 * | `s.receive(on_frame, max_bytes)` | `result<std::size_t>` | Hands every complete message available to `on_frame(frame_type&&)`, stopping once `max_bytes` were handed; the bytes handed, or the error that ended the stream (`errc::server_error` with `last_sqlstate()`, `errc::connection_failed`). |
 * | `s.send(payload)` | `result<void>` | Sends one CopyData message (a status update). |
 * | `s.wait(wake_fd, timeout)` | `result<pq::wait_outcome>` | Waits until input is readable, `wake_fd` (if not negative) is, or `timeout` passes. |
 * | `s.input_waiting()` | `bool`, `noexcept` | Whether input waits unread: the server is held back. |
 * | `s.finish()` | `result<void>` | Ends the stream cleanly (CopyDone). |
 * | `s.backend_pid()` | `int` | The walsender's process id, for the server's statistics. |
 * | `s.last_sqlstate()` | convertible to `std::string_view` | The SQLSTATE of the error that ended the stream, empty if none. |
 *
 * The session thread calls every member; a keepalive guard thread calls `send` too, always under
 * the same mutex as the session thread's calls (`wait` and `input_waiting` excepted).
 *
 * Optional: `S::simulated_time`, a `static constexpr bool`. When true, the server keeps a clock of
 * its own that only the session's calls move on, so no real time passes for it while the session
 * thread is in a sink's or a store's call, and the session runs without the keepalive guard
 * thread (which covers such calls in real time, and would make a simulated run depend on the
 * machine's timing).
 */
template <class S>
concept server_stream =
    std::movable<typename S::frame_type> &&
    requires(S& s, const typename S::frame_type& f, void (*on_frame)(typename S::frame_type&&), std::size_t max,
             std::span<const std::byte> payload, int fd, std::chrono::milliseconds timeout) {
      { f.bytes() } -> std::same_as<std::span<const std::byte>>;
      { s.receive(on_frame, max) } -> std::same_as<result<std::size_t>>;
      { s.send(payload) } -> std::same_as<result<void>>;
      { s.wait(fd, timeout) } -> std::same_as<result<pq::wait_outcome>>;
      { s.input_waiting() } noexcept -> std::same_as<bool>;
      { s.finish() } -> std::same_as<result<void>>;
      { s.backend_pid() } -> std::same_as<int>;
      { s.last_sqlstate() } -> std::convertible_to<std::string_view>;
    };

static_assert(server_stream<pq::replication_stream>);

namespace detail {

/// Whether the server of stream type @p S runs on real time (every model but a simulated one):
/// then a keepalive guard covers the session thread's long calls.
template <class S>
inline constexpr bool on_real_time = !requires { requires S::simulated_time; };

}  // namespace detail

}  // namespace replicant

#endif  // REPLICANT_PIPELINE_SERVER_STREAM_HPP
