// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PQ_REPLICATION_STREAM_HPP
#define REPLICANT_PQ_REPLICATION_STREAM_HPP

/// @file
/// replicant::pq::replication_stream: the CopyBoth phase of a logical walsender connection.

#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>
#include <replicant/pq/connection.hpp>

#include <libpq-fe.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <system_error>
#include <utility>

namespace replicant::pq {

/**
 * One CopyData payload as libpq received it: owned, contiguous, freed with `PQfreemem`.
 *
 * Handing the buffer libpq allocated straight to the decoder avoids a copy per message.
 */
class frame {
 public:
  /// An empty frame.
  frame() noexcept = default;
  /// Takes ownership of @p data (allocated by libpq) holding @p size bytes.
  frame(char* data, std::size_t size) noexcept : data_(data), size_(size) {}

  /// The payload bytes.
  [[nodiscard]] auto bytes() const noexcept -> std::span<const std::byte> {
    return {reinterpret_cast<const std::byte*>(data_.get()), size_};
  }
  /// The payload size in bytes.
  [[nodiscard]] auto size() const noexcept -> std::size_t { return size_; }

 private:
  struct deleter {
    void operator()(char* p) const noexcept { PQfreemem(p); }
  };
  std::unique_ptr<char, deleter> data_;
  std::size_t size_ = 0;
};

/// What wait() saw.
enum class wait_outcome {
  /// The socket has data (or an error to report): call receive().
  readable,
  /// The extra descriptor fired (e.g. the applier published a new durable LSN).
  woken,
  /// Nothing happened before the timeout.
  timed_out,
};

/// Socket-level tuning of a stream.
struct stream_options {
  /// `SO_RCVLOWAT` on TCP (0: leave the default of 1 byte). A larger value makes one wakeup
  /// carry many messages; wait()'s timeout still bounds how long a small message may sit.
  int receive_low_water_bytes = 0;
  /// How long wait() pauses before it sleeps on an empty socket (0: it sleeps at once). What the
  /// server sends meanwhile is then read in one wakeup: a reader that sleeps on the socket after
  /// every message makes the sender wake it for every message, which is work on the server's CPU,
  /// not only on the reader's. The pause adds at most its length to the latency of a message that
  /// arrives into a quiet stream.
  std::chrono::microseconds gather_delay{0};
};

/**
 * A logical replication stream in the CopyBoth state.
 *
 * The session thread owns it: receive() drains every complete CopyData message libpq has
 * buffered (many per wakeup), send() queues and flushes one CopyData message to the server, wait()
 * blocks until the socket or a wake descriptor is ready. It never interprets the payloads; framing
 * is the decoder's job.
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe, but for wait() and input_waiting(), which touch
 * only the socket: the pipeline serializes receive(), send() and finish() under one mutex (its
 * keepalive guard sends from a thread of its own).
 */
class replication_stream {
 public:
  /// What receive() hands out: a CopyData payload libpq allocated.
  using frame_type = frame;

  /**
   * Sends @p start_command (a `START_REPLICATION ... LOGICAL ...` command) on @p conn and enters CopyBoth.
   *
   * @return the stream, or `errc::server_error` (the server refused; `conn.last_error()` has the
   * SQLSTATE, e.g. 55000 for an invalidated slot, 55006 for a slot in use) or `errc::connection_failed`.
   * On failure @p conn is not moved from: it stays usable, with its last_error().
   */
  [[nodiscard]] static auto start(connection&& conn, const std::string& start_command,
                                  const stream_options& options = {}) -> result<replication_stream>;

  /**
   * Calls @p on_frame(frame&&) for each complete message already received, reading the socket once
   * first. Stops early once @p max_bytes have been handed out (the resident budget); complete
   * messages may then still be buffered inside libpq, where poll() cannot see them, so call
   * receive() again before the next wait() once there is room.
   *
   * @return the number of bytes handed out; `errc::server_error` when the server ended the stream
   * with an error (last_error() has the SQLSTATE), `errc::connection_failed` when the connection was
   * lost or the server ended the copy (shutdown).
   */
  template <class OnFrame>
  [[nodiscard]] auto receive(OnFrame&& on_frame, std::size_t max_bytes) -> result<std::size_t> {
    // The socket is read only once libpq holds no complete message any more: reading it while
    // messages wait (the budget stopped the last call) would grow libpq's buffer past the budget.
    bool read = false;
    const auto read_socket = [&] {
      read = true;
      return PQconsumeInput(conn_.native_handle()) != 0;
    };
    if (!buffered_ && !read_socket()) return end_of_copy();
    std::size_t handed = 0;
    while (handed < max_bytes) {
      char* buf = nullptr;
      const int n = PQgetCopyData(conn_.native_handle(), &buf, 1);
      if (n > 0) {
        handed += static_cast<std::size_t>(n);
        on_frame(frame{buf, static_cast<std::size_t>(n)});
        continue;
      }
      if (n < 0) return end_of_copy();
      // Nothing complete is buffered: read the socket if this call has not, else that is all.
      if (!read) {
        if (!read_socket()) return end_of_copy();
        continue;
      }
      buffered_ = false;
      return handed;
    }
    buffered_ = true;  // stopped at the budget: complete messages may still wait inside libpq
    return handed;
  }

  /// Queues @p payload as one CopyData message and flushes it.
  [[nodiscard]] auto send(std::span<const std::byte> payload) -> result<void>;

  /// Waits until the socket is readable, @p wake_fd (if >= 0) is readable, or @p timeout passes;
  /// on an empty socket, after the gather delay of stream_options (within the timeout).
  [[nodiscard]] auto wait(int wake_fd, std::chrono::milliseconds timeout) -> result<wait_outcome>;

  /**
   * Whether input waits unread: bytes in the socket's receive queue, or complete messages libpq
   * holds (after a receive() that stopped at its budget). What a paced stream leaves for later.
   * Never blocks; touches no libpq state.
   */
  [[nodiscard]] auto input_waiting() noexcept -> bool;

  /// Ends the stream cleanly: sends CopyDone and drains until the server has finished, leaving the
  /// connection ready for commands again. Errors here are reported but leave nothing to undo.
  [[nodiscard]] auto finish() -> result<void>;

  /// The connection underneath (for its socket and last_error()).
  [[nodiscard]] auto connection() noexcept -> pq::connection& { return conn_; }

  /// The walsender's process id (for the server's statistics of it).
  [[nodiscard]] auto backend_pid() const noexcept -> int { return conn_.backend_pid(); }

  /// The SQLSTATE of the error that ended the stream, if the server sent one.
  [[nodiscard]] auto last_sqlstate() const -> std::string { return conn_.last_error().sqlstate; }

 private:
  explicit replication_stream(pq::connection&& c) noexcept : conn_(std::move(c)) {}

  bool buffered_ = false;  // the last receive() stopped at its budget with messages left in libpq
  std::chrono::microseconds gather_delay_{0};

  [[nodiscard]] auto flush() -> result<void>;

  // The copy ended: find out whether the server reported an error or simply closed.
  [[nodiscard]] auto end_of_copy() -> unexpected<std::error_code>;

  pq::connection conn_;
};

}  // namespace replicant::pq

// The bodies that start, send on, wait on and finish a stream: in every unit header-only, in the
// one unit that includes <replicant/src.hpp> with REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/pq/impl/replication_stream.hpp>
#endif

#endif  // REPLICANT_PQ_REPLICATION_STREAM_HPP
