// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_PROMETHEUS_HTTP_HPP
#define REPLICANT_EXAMPLES_PROMETHEUS_HTTP_HPP

/// @file
/// replicant-prometheus's HTTP side: a minimal HTTP/1.0 responder on 127.0.0.1, single-threaded,
/// driven by poll(), answering `GET /metrics`. Enough for a Prometheus server (or curl) on the same
/// machine; deliberately not a general web server: no keep-alive, no TLS, no other address than
/// loopback (put a reverse proxy in front to expose it).

#include <replicant/core/result.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace replicant::examples::prometheus {

/// The content type of the Prometheus text exposition format.
inline constexpr std::string_view metrics_content_type = "text/plain; version=0.0.4; charset=utf-8";

/// The longest request head read; a longer one is answered 431 and closed.
inline constexpr std::size_t max_request_head = 8192;

/// How long one connection may take to send its request and take the response.
inline constexpr std::chrono::milliseconds connection_deadline{5000};

/// A request line: `GET /metrics HTTP/1.1` gives method `GET`, path `/metrics`.
struct http_request {
  /// The method, e.g. `GET`.
  std::string_view method;
  /// The path, without a query string.
  std::string_view path;
};

/// A response to send: status, reason phrase, content type and body.
struct http_response {
  /// The status code, e.g. 200.
  int status = 200;
  /// The reason phrase, e.g. `OK`.
  std::string_view reason = "OK";
  /// The `Content-Type`.
  std::string_view content_type = "text/plain; charset=utf-8";
  /// The body (not sent for `HEAD`).
  std::string body;
  /// Whether only the head is sent (the request was `HEAD`).
  bool head_only = false;
};

/**
 * Parses the request line at the start of @p head (what arrived up to the blank line): a method,
 * one space, a target starting with `/`, one space, `HTTP/1.0` or `HTTP/1.1`. The query string is
 * dropped from the path.
 * @return the request, or nothing when the line is malformed. Never throws.
 */
[[nodiscard]] constexpr auto parse_request_line(std::string_view head) noexcept -> std::optional<http_request> {
  const auto end = head.find_first_of("\r\n");
  const auto line = head.substr(0, end);
  const auto sp1 = line.find(' ');
  if (sp1 == std::string_view::npos || sp1 == 0) return std::nullopt;
  const auto sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) return std::nullopt;
  const auto method = line.substr(0, sp1);
  const auto target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const auto version = line.substr(sp2 + 1);
  if (version != "HTTP/1.0" && version != "HTTP/1.1") return std::nullopt;
  if (target.empty() || target[0] != '/') return std::nullopt;
  for (const char c : method) {
    if (c < 'A' || c > 'Z') return std::nullopt;
  }
  return http_request{method, target.substr(0, target.find('?'))};
}

/**
 * The response to the request whose head is @p head: `GET` or `HEAD` of `/metrics` is answered
 * 200 with `render()` in the Prometheus text format; `/` with a line pointing there; any other
 * path 404; any other method 405; a malformed request line 400.
 *
 * @tparam Render callable as `std::string()`.
 * @throws whatever @p render throws (std::bad_alloc).
 */
template <class Render>
[[nodiscard]] auto respond(std::string_view head, Render&& render) -> http_response {
  const auto request = parse_request_line(head);
  if (!request) return {.status = 400, .reason = "Bad Request", .body = "bad request\n"};
  if (request->method != "GET" && request->method != "HEAD") {
    return {.status = 405, .reason = "Method Not Allowed", .body = "only GET and HEAD\n"};
  }
  const bool head_only = request->method == "HEAD";
  if (request->path == "/metrics") {
    return {.content_type = metrics_content_type, .body = render(), .head_only = head_only};
  }
  if (request->path == "/") {
    return {.body = "replicant-prometheus: the metrics are at /metrics\n", .head_only = head_only};
  }
  http_response not_found{.status = 404, .reason = "Not Found", .body = "not found; the metrics are at /metrics\n"};
  not_found.head_only = head_only;
  return not_found;
}

/**
 * The bytes of @p r as an HTTP/1.0 response: status line, `Content-Type`, `Content-Length`,
 * `Connection: close` (and `Allow` for a 405), a blank line, then the body unless `head_only`.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto format_response(const http_response& r) -> std::string {
  std::string out = "HTTP/1.0 " + std::to_string(r.status) + ' ' + std::string{r.reason} + "\r\n";
  out += "Content-Type: ";
  out += r.content_type;
  out += "\r\nContent-Length: " + std::to_string(r.body.size()) + "\r\n";
  if (r.status == 405) out += "Allow: GET, HEAD\r\n";
  out += "Connection: close\r\n\r\n";
  if (!r.head_only) out += r.body;
  return out;
}

namespace detail {

[[nodiscard]] inline auto os_error() -> unexpected<std::error_code> {
  return unexpected<std::error_code>(std::error_code{errno, std::system_category()});
}

// Whether @p head holds the blank line that ends a request head.
[[nodiscard]] constexpr auto head_complete(std::string_view head) noexcept -> bool {
  return head.find("\r\n\r\n") != std::string_view::npos || head.find("\n\n") != std::string_view::npos;
}

// Waits until @p fd is ready for @p events or the stop descriptor is readable, up to @p deadline.
// True when @p fd is ready.
[[nodiscard]] inline auto wait_ready(int fd, short events, int stop_fd,
                                     std::chrono::steady_clock::time_point deadline) noexcept -> bool {
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd fds[2] = {{fd, events, 0}, {stop_fd, POLLIN, 0}};
    const int n = ::poll(fds, stop_fd >= 0 ? 2 : 1, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    if (stop_fd >= 0 && (fds[1].revents & POLLIN) != 0) return false;
    return (fds[0].revents & (events | POLLHUP | POLLERR)) != 0;
  }
}

}  // namespace detail

/**
 * A listening TCP socket on 127.0.0.1, never on another address: what it serves is for this
 * machine only.
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe.
 */
class loopback_listener {
 public:
  /**
   * Listens on 127.0.0.1:@p port; port 0 takes any free port (see port()).
   * @return the listener, or the OS error (`EADDRINUSE` for a port in use).
   */
  [[nodiscard]] static auto open(std::uint16_t port) -> result<loopback_listener> {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return detail::os_error();
    loopback_listener l{fd};
    const int on = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);  // a restart need not wait out TIME_WAIT
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) return detail::os_error();
    if (::listen(fd, 16) != 0) return detail::os_error();
    socklen_t len = sizeof addr;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return detail::os_error();
    l.port_ = ntohs(addr.sin_port);
    return l;
  }

  loopback_listener(loopback_listener&& other) noexcept : fd_(std::exchange(other.fd_, -1)), port_(other.port_) {}
  auto operator=(loopback_listener&& other) noexcept -> loopback_listener& {
    if (this != &other) {
      if (fd_ >= 0) ::close(fd_);
      fd_ = std::exchange(other.fd_, -1);
      port_ = other.port_;
    }
    return *this;
  }
  loopback_listener(const loopback_listener&) = delete;
  auto operator=(const loopback_listener&) -> loopback_listener& = delete;
  /// Closes the socket.
  ~loopback_listener() {
    if (fd_ >= 0) ::close(fd_);
  }

  /// The port listened on. Never throws.
  [[nodiscard]] auto port() const noexcept -> std::uint16_t { return port_; }

  /// The listening descriptor. Never throws.
  [[nodiscard]] auto fd() const noexcept -> int { return fd_; }

 private:
  explicit loopback_listener(int fd) noexcept : fd_(fd) {}
  int fd_ = -1;
  std::uint16_t port_ = 0;
};

/**
 * Answers the connections of @p listener one at a time until @p stop_fd becomes readable: reads
 * the request head (at most @ref max_request_head bytes, within @ref connection_deadline), writes
 * respond(head, render) and closes. A client that is too slow is dropped; it holds the responder
 * for at most the deadline.
 *
 * @tparam Render callable as `std::string()`: the metrics in the text format.
 * @return nothing once stopped, or the OS error of poll() or accept() (not of one connection,
 * which is just closed).
 * @throws std::bad_alloc only.
 */
template <class Render>
[[nodiscard]] auto serve(const loopback_listener& listener, int stop_fd, Render&& render) -> result<void> {
  for (;;) {
    pollfd fds[2] = {{listener.fd(), POLLIN, 0}, {stop_fd, POLLIN, 0}};
    const int n = ::poll(fds, 2, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      return detail::os_error();
    }
    if ((fds[1].revents & POLLIN) != 0) return {};
    if ((fds[0].revents & POLLIN) == 0) continue;
    const int client = ::accept4(listener.fd(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (client < 0) {
      // The client may have given up between poll() and accept(); the listener is fine.
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ECONNABORTED || errno == EINTR || errno == EPROTO) {
        continue;
      }
      return detail::os_error();
    }
    const auto deadline = std::chrono::steady_clock::now() + connection_deadline;
    std::string head;
    bool complete = false;
    bool too_long = false;
    while (!complete && !too_long && detail::wait_ready(client, POLLIN, stop_fd, deadline)) {
      char chunk[2048];
      const ssize_t got = ::recv(client, chunk, sizeof chunk, 0);
      if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (got <= 0) break;
      head.append(chunk, static_cast<std::size_t>(got));
      too_long = head.size() > max_request_head;
      complete = !too_long && detail::head_complete(head);
    }
    if (complete || too_long) {
      const std::string bytes = format_response(too_long ? http_response{.status = 431,
                                                                         .reason = "Request Header Fields Too Large",
                                                                         .body = "request head too long\n"}
                                                         : respond(head, render));
      std::string_view rest = bytes;
      while (!rest.empty() && detail::wait_ready(client, POLLOUT, stop_fd, deadline)) {
        const ssize_t sent = ::send(client, rest.data(), rest.size(), MSG_NOSIGNAL);
        if (sent < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (sent <= 0) break;
        rest.remove_prefix(static_cast<std::size_t>(sent));
      }
      // Read what the client still sends until it closes (briefly): closing a socket with unread
      // data resets the connection, and the reset can destroy the response in flight.
      ::shutdown(client, SHUT_WR);
      const auto linger = std::min(deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds{200});
      char ignored[2048];
      while (detail::wait_ready(client, POLLIN, stop_fd, linger) && ::recv(client, ignored, sizeof ignored, 0) > 0) {
      }
    }
    ::close(client);
  }
}

}  // namespace replicant::examples::prometheus

#endif  // REPLICANT_EXAMPLES_PROMETHEUS_HTTP_HPP
