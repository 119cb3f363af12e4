// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PQ_IMPL_REPLICATION_STREAM_HPP
#define REPLICANT_PQ_IMPL_REPLICATION_STREAM_HPP

// Out-of-line bodies of replicant::pq::replication_stream: entering CopyBoth, sending, waiting,
// finishing, and the end of the copy that receive() (a template, left in the header) reports.
// Included at the bottom of <replicant/pq/replication_stream.hpp> (which it includes nothing of
// back); with REPLICANT_SEPARATE_COMPILATION only by <replicant/pq/src.hpp>, so that they are
// compiled once.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>
#include <replicant/pq/connection.hpp>

#include <libpq-fe.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <span>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

namespace replicant::pq {

REPLICANT_DECL auto replication_stream::start(pq::connection&& conn, const std::string& start_command,
                                              const stream_options& options) -> result<replication_stream> {
  auto r = conn.exec(start_command);
  if (!r) return unexpected(r.error());
  if (PQresultStatus(r->native_handle()) != PGRES_COPY_BOTH) return fail(errc::protocol_violation);
  replication_stream s{std::move(conn)};
  s.gather_delay_ = options.gather_delay;
  if (options.receive_low_water_bytes > 0) {
    const int lowat = options.receive_low_water_bytes;
    // Only meaningful on TCP; on a unix socket the call fails harmlessly and is ignored.
    static_cast<void>(::setsockopt(s.conn_.socket(), SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof lowat));
  }
  return s;
}

REPLICANT_DECL auto replication_stream::send(std::span<const std::byte> payload) -> result<void> {
  if (PQputCopyData(conn_.native_handle(), reinterpret_cast<const char*>(payload.data()),
                    static_cast<int>(payload.size())) != 1) {
    return fail(errc::connection_failed);
  }
  return flush();
}

REPLICANT_DECL auto replication_stream::wait(int wake_fd, std::chrono::milliseconds timeout) -> result<wait_outcome> {
  if (gather_delay_.count() > 0 && timeout.count() > 0 && !input_waiting()) {
    const auto pause = std::min<std::chrono::microseconds>(gather_delay_, timeout);
    std::this_thread::sleep_for(pause);
    timeout -= std::chrono::ceil<std::chrono::milliseconds>(pause);  // pause <= timeout, a whole ms count
  }
  pollfd fds[2] = {{conn_.socket(), POLLIN, 0}, {wake_fd, POLLIN, 0}};
  const int n = ::poll(fds, wake_fd >= 0 ? 2 : 1, static_cast<int>(timeout.count()));
  if (n < 0) return errno == EINTR ? result<wait_outcome>{wait_outcome::timed_out} : fail(errc::connection_failed);
  if (n == 0) return wait_outcome::timed_out;
  if (fds[0].revents != 0) return wait_outcome::readable;
  return wait_outcome::woken;
}

REPLICANT_DECL auto replication_stream::input_waiting() noexcept -> bool {
  int queued = 0;
  return buffered_ || (::ioctl(conn_.socket(), FIONREAD, &queued) == 0 && queued > 0);
}

REPLICANT_DECL auto replication_stream::finish() -> result<void> {
  // The server's last messages are small: with a low-water mark poll() would not see them.
  const int one = 1;
  static_cast<void>(::setsockopt(conn_.socket(), SOL_SOCKET, SO_RCVLOWAT, &one, sizeof one));
  if (PQputCopyEnd(conn_.native_handle(), nullptr) < 0) return fail(errc::connection_failed);
  static_cast<void>(flush());
  // Drain what the server still sends until it ends the copy, then collect the command results.
  for (;;) {
    char* buf = nullptr;
    const int n = PQgetCopyData(conn_.native_handle(), &buf, 1);
    if (n > 0) {
      PQfreemem(buf);
      continue;
    }
    if (n < 0) break;
    if (auto w = wait(-1, std::chrono::seconds(5)); !w || *w == wait_outcome::timed_out) {
      return fail(errc::connection_failed);
    }
    if (PQconsumeInput(conn_.native_handle()) == 0) return fail(errc::connection_failed);
  }
  while (PGresult* r = PQgetResult(conn_.native_handle())) PQclear(r);
  return {};
}

REPLICANT_DECL auto replication_stream::flush() -> result<void> {
  for (int f; (f = PQflush(conn_.native_handle())) != 0;) {
    if (f < 0) return fail(errc::connection_failed);
    // The server may be blocked writing to us: read while we wait for room to write.
    pollfd fd{conn_.socket(), POLLIN | POLLOUT, 0};
    if (::poll(&fd, 1, 1000) < 0 && errno != EINTR) return fail(errc::connection_failed);
    if (PQconsumeInput(conn_.native_handle()) == 0) return fail(errc::connection_failed);
  }
  return {};
}

REPLICANT_DECL auto replication_stream::end_of_copy() -> unexpected<std::error_code> {
  bool server_reported = false;
  while (PGresult* r = PQgetResult(conn_.native_handle())) {
    if (PQresultStatus(r) == PGRES_FATAL_ERROR && !server_reported) {
      conn_.remember_error(r);
      server_reported = !conn_.last_error().sqlstate.empty();
    }
    PQclear(r);
    if (!conn_.is_open()) break;
  }
  return unexpected(make_error_code(server_reported ? errc::server_error : errc::connection_failed));
}

}  // namespace replicant::pq

#endif  // REPLICANT_PQ_IMPL_REPLICATION_STREAM_HPP
