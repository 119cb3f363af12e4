// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_FAULTS_REWRITE_PROXY_HPP
#define REPLICANT_TESTS_SUPPORT_FAULTS_REWRITE_PROXY_HPP

/// @file
/// A loopback TCP proxy between a client and a PostgreSQL server that hands every message the
/// server sends to a test's function, which may change it before the client sees it (and, when a
/// second function is given, every message the client sends after its startup packet, before the
/// server sees it). The live
/// decoder tests use it to make a real server and a real output plugin say what a well-behaved
/// pair never says (a commit without its LSN, a protocol version the decoder does not speak, a
/// server version without pgoutput), so that the fail-closed paths for those are exercised end to
/// end. Unlike fault_proxy.hpp, which damages bytes blindly, it understands the message framing
/// (a type byte and a four-byte length, PostgreSQL protocol "Message Formats") and keeps it intact.
///
/// The proxy never logs, prints or keeps what it relays. Header-only.

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>

namespace replicant::test {

/**
 * Relays connections from a loopback port to one upstream loopback port, rewriting the server's
 * messages with a function of the test's.
 *
 * @par Example
 * @code
 * rewrite_proxy proxy{pg.port(), [](char type, std::string& body) {
 *   return type == 'S' && rewrite_parameter(body, "server_version", "9.6.24");
 * }};
 * options.conninfo = proxy.route(pg.dsn(db));
 * @endcode
 *
 * @par Thread safety
 * Every member function may be called from any thread; the rewrite function runs on the proxy's
 * connection threads (one per connection).
 */
class rewrite_proxy {
 public:
  /// Changes one backend message in place: its type byte and its body (without type and length).
  /// Returns whether it changed anything (counted by rewritten()).
  using rewrite_function = std::function<bool(char type, std::string& body)>;

  /// Listens on a free loopback port and relays to @p upstream_port, rewriting the server's messages
  /// with @p rewrite and the client's with @p rewrite_client (when given; e.g. a `Q` query).
  /// @throws std::system_error when the socket cannot be made.
  rewrite_proxy(int upstream_port, rewrite_function rewrite, rewrite_function rewrite_client = nullptr)
      : upstream_port_(upstream_port), rewrite_(std::move(rewrite)), rewrite_client_(std::move(rewrite_client)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0) throw std::system_error(errno, std::generic_category(), "rewrite_proxy: socket");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 16) != 0 ||
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      const int e = errno;
      ::close(listen_fd_);
      throw std::system_error(e, std::generic_category(), "rewrite_proxy: listen");
    }
    port_ = ntohs(addr.sin_port);
    if (::pipe2(stop_pipe_, O_CLOEXEC) != 0) {
      const int e = errno;
      ::close(listen_fd_);
      throw std::system_error(e, std::generic_category(), "rewrite_proxy: pipe");
    }
    acceptor_ = std::thread{[this] { accept_loop(); }};
  }
  rewrite_proxy(const rewrite_proxy&) = delete;
  auto operator=(const rewrite_proxy&) -> rewrite_proxy& = delete;

  /// Stops every thread and closes every socket. Never throws.
  ~rewrite_proxy() {
    static_cast<void>(::write(stop_pipe_[1], "x", 1));
    if (acceptor_.joinable()) acceptor_.join();
    {
      const std::lock_guard lock{mutex_};
      for (std::thread& t : connections_) {
        if (t.joinable()) t.join();
      }
    }
    ::close(listen_fd_);
    ::close(stop_pipe_[0]);
    ::close(stop_pipe_[1]);
  }

  /// The port the proxy listens on. Never throws.
  [[nodiscard]] auto port() const noexcept -> int { return port_; }

  /// Messages the rewrite function changed so far. Never throws.
  [[nodiscard]] auto rewritten() const noexcept -> std::uint64_t { return rewritten_.load(); }

  /// @p dsn (keyword/value, with a `port=`) pointed at the proxy, with TLS and GSS encryption off so
  /// that the proxy sees plain protocol messages. @throws std::invalid_argument without a port.
  [[nodiscard]] auto route(std::string_view dsn) const -> std::string {
    std::size_t at = dsn.find("port=");
    while (at != std::string_view::npos && at != 0 && dsn[at - 1] != ' ') at = dsn.find("port=", at + 1);
    if (at == std::string_view::npos) throw std::invalid_argument{"rewrite_proxy::route: the DSN names no port"};
    std::size_t end = at + 5;
    while (end < dsn.size() && dsn[end] >= '0' && dsn[end] <= '9') ++end;
    return std::string{dsn.substr(0, at + 5)} + std::to_string(port_) + std::string{dsn.substr(end)} +
           " sslmode=disable gssencmode=disable";
  }

 private:
  auto accept_loop() -> void {
    for (;;) {
      pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[1].revents != 0) return;
      const int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) continue;
      const int server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      addr.sin_port = htons(static_cast<std::uint16_t>(upstream_port_));
      if (server < 0 || ::connect(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        if (server >= 0) ::close(server);
        ::close(client);
        continue;
      }
      const int one = 1;
      ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      ::setsockopt(server, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      const std::lock_guard lock{mutex_};
      connections_.emplace_back([this, client, server] { relay(client, server); });
    }
  }

  // Writes all of @p bytes; false when the peer is gone.
  static auto send_all(int fd, std::string_view bytes) -> bool {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

  // Hands each complete message of @p pending to @p rewrite and appends the result to @p out; an
  // incomplete one stays in @p pending.
  auto rewrite_messages(std::string& pending, std::string& out, const rewrite_function& rewrite) -> void {
    std::size_t at = 0;
    while (pending.size() - at >= 5) {
      std::uint32_t length = 0;
      for (std::size_t i = 1; i <= 4; ++i) length = (length << 8U) | static_cast<unsigned char>(pending[at + i]);
      if (length < 4) {  // not a protocol stream after all: relay the rest as it is
        out.append(pending, at);
        pending.clear();
        return;
      }
      if (pending.size() - at < 1 + std::size_t{length}) break;
      const char type = pending[at];
      std::string body = pending.substr(at + 5, length - 4);
      if (rewrite && rewrite(type, body)) ++rewritten_;
      const auto new_length = static_cast<std::uint32_t>(body.size() + 4);
      out.push_back(type);
      for (const unsigned shift : {24U, 16U, 8U, 0U}) out.push_back(static_cast<char>((new_length >> shift) & 0xFFU));
      out += body;
      at += 1 + std::size_t{length};
    }
    pending.erase(0, at);
  }

  // The client's messages, rewritten with rewrite_client_: its first one, the startup packet, has
  // no type byte and goes through as it is (route() turns TLS and GSS off, so nothing precedes it).
  auto rewrite_frontend(std::string& pending, std::string& out, bool& started) -> void {
    if (!started) {
      if (pending.size() < 4) return;
      std::uint32_t length = 0;
      for (std::size_t i = 0; i < 4; ++i) length = (length << 8U) | static_cast<unsigned char>(pending[i]);
      if (pending.size() < length) return;
      out.append(pending, 0, length);
      pending.erase(0, length);
      started = true;
    }
    rewrite_messages(pending, out, rewrite_client_);
  }

  auto relay(int client, int server) -> void {
    std::string pending;
    std::string out;
    std::string client_pending;
    std::string client_out;
    bool client_started = false;
    char buf[65536];
    for (;;) {
      pollfd fds[3] = {{client, POLLIN, 0}, {server, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
      if (::poll(fds, 3, -1) < 0) {
        if (errno == EINTR) continue;
        break;
      }
      if (fds[2].revents != 0) break;
      if (fds[0].revents != 0) {
        const ssize_t n = ::recv(client, buf, sizeof buf, 0);
        if (n <= 0) break;
        std::string_view bytes{buf, static_cast<std::size_t>(n)};
        if (rewrite_client_) {
          client_pending.append(bytes);
          client_out.clear();
          rewrite_frontend(client_pending, client_out, client_started);
          bytes = client_out;
        }
        if (!send_all(server, bytes)) break;
      }
      if (fds[1].revents != 0) {
        const ssize_t n = ::recv(server, buf, sizeof buf, 0);
        if (n <= 0) break;
        pending.append(buf, static_cast<std::size_t>(n));
        out.clear();
        rewrite_messages(pending, out, rewrite_);
        if (!send_all(client, out)) break;
      }
    }
    ::close(client);
    ::close(server);
  }

  int upstream_port_;
  rewrite_function rewrite_;
  rewrite_function rewrite_client_;
  int listen_fd_ = -1;
  int port_ = 0;
  int stop_pipe_[2] = {-1, -1};
  std::atomic<std::uint64_t> rewritten_{0};
  std::mutex mutex_;
  std::list<std::thread> connections_;
  std::thread acceptor_;
};

/**
 * In a ParameterStatus body (`name\0value\0`), replaces the value of @p name with @p value.
 * @return whether the body was that parameter.
 */
inline auto rewrite_parameter(std::string& body, std::string_view name, std::string_view value) -> bool {
  const std::string prefix = std::string{name} + '\0';
  if (body.compare(0, prefix.size(), prefix) != 0) return false;
  body = prefix + std::string{value} + '\0';
  return true;
}

/**
 * The output plugin's part of a CopyData body holding XLogData (`w`, then a 24-byte header), or an
 * empty view for any other message.
 */
inline auto xlog_payload(char type, std::string& body) -> std::string_view {
  if (type != 'd' || body.size() < 25 || body[0] != 'w') return {};
  return std::string_view{body}.substr(25);
}

/**
 * In the output plugin's part of an XLogData CopyData body, replaces the first @p from that follows
 * @p after (when the payload starts with @p after) with @p to of the same length.
 * @return whether it replaced anything.
 */
inline auto rewrite_payload(char type, std::string& body, std::string_view after, std::string_view from,
                            std::string_view to) -> bool {
  const std::string_view payload = xlog_payload(type, body);
  if (payload.substr(0, after.size()) != after || from.size() != to.size()) return false;
  const std::size_t at = payload.find(from, after.size());
  if (at == std::string_view::npos) return false;
  body.replace(25 + at, from.size(), to);
  return true;
}

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_FAULTS_REWRITE_PROXY_HPP
