// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#include "support/faults/fault_proxy.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <random>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

namespace replicant::test {

namespace {

// Bytes buffered per direction before the proxy stops reading the sender: enough to keep a
// stream moving, small enough that a client that stops reading pushes back on the server as it
// would without the proxy.
constexpr std::size_t buffer_cap = 256 * 1024;

auto system_failure(const char* what) -> std::system_error {
  return std::system_error{errno, std::generic_category(), what};
}

auto loopback(int port) -> sockaddr_in {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

auto set_no_delay(int fd) noexcept -> void {
  const int one = 1;
  static_cast<void>(::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one));
}

// Closes with a TCP RST instead of a FIN: the peer's next read fails with ECONNRESET.
auto close_abortively(int fd) noexcept -> void {
  if (fd < 0) return;
  const linger l{1, 0};
  static_cast<void>(::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l));
  ::close(fd);
}

// Bytes read from one side, waiting to be written to the other.
struct pending_bytes {
  std::vector<char> data;
  std::size_t head = 0;

  [[nodiscard]] auto size() const noexcept -> std::size_t { return data.size() - head; }
  [[nodiscard]] auto empty() const noexcept -> bool { return size() == 0; }
  [[nodiscard]] auto front() const noexcept -> const char* { return data.data() + head; }
  auto consume(std::size_t n) -> void {
    head += n;
    if (head == data.size()) {
      data.clear();
      head = 0;
    } else if (head > buffer_cap) {
      data.erase(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(head));
      head = 0;
    }
  }
};

// Follows the backend message framing of one connection's server-to-client stream, byte by byte,
// to say what each byte is (corruption_target). It reads the bytes as the server sent them, before
// any corruption, so it stays in step with the server whatever the client makes of them.
class framing_tracker {
 public:
  // The role of the next byte @p b; advances past it.
  auto classify(unsigned char b) noexcept -> corruption_target {
    if (header_pos_ == 0 && prelude_) {
      // Before the first framed message a server may answer an SSL or GSS encryption request with
      // one unframed byte, 'N' (refused). route() turns both requests off; this is for safety.
      if (b == 'N') return corruption_target::message_header;
      prelude_ = false;
    }
    last_body_offset_ = -1;
    if (header_pos_ < 5) {
      if (header_pos_ == 0) {
        type_ = b;
        length_ = 0;
      } else {
        length_ = (length_ << 8U) | b;
      }
      if (++header_pos_ == 5) {
        body_length_ = length_ >= 4 ? length_ - 4 : 0;
        body_pos_ = 0;
        kind_ = 0;
        tag_ = 0;
        if (body_length_ == 0) header_pos_ = 0;
      }
      return corruption_target::message_header;
    }
    auto role = corruption_target::any_byte;
    if (type_ == 'd') {
      if (body_pos_ == 0) kind_ = b;
      if (kind_ == 'k' && body_pos_ >= 1 && body_pos_ < 9) {
        role = corruption_target::keepalive_position;
      } else if (body_pos_ == 0 || (kind_ == 'w' && body_pos_ < 25) || (kind_ == 'k' && body_pos_ < 18)) {
        role = corruption_target::replication_header;
      } else if (kind_ == 'w' && body_pos_ == 25) {
        tag_ = b;
        role = corruption_target::pgoutput_tag;
      } else if (kind_ == 'w' && tag_ == 'I' && body_pos_ + 1 == body_length_) {
        role = corruption_target::insert_value;
      } else if (kind_ == 'w' && tag_ == 'C' && body_pos_ >= 27 && body_pos_ < 43) {
        role = corruption_target::commit_lsns;
      }
    }
    last_body_offset_ = static_cast<std::int64_t>(body_pos_);
    if (++body_pos_ == body_length_) header_pos_ = 0;
    return role;
  }

  // The offset in its message's body of the byte classify() saw last (-1 for a header byte).
  [[nodiscard]] auto last_body_offset() const noexcept -> std::int64_t { return last_body_offset_; }

 private:
  bool prelude_ = true;
  unsigned header_pos_ = 0;
  unsigned char type_ = 0;
  std::uint32_t length_ = 0;
  std::uint32_t body_length_ = 0;
  std::uint32_t body_pos_ = 0;
  std::int64_t last_body_offset_ = -1;
  unsigned char kind_ = 0;
  unsigned char tag_ = 0;
};

// One relayed connection.
struct link {
  int client = -1;
  int server = -1;  // -1 while held (black hole) or after the upstream refused
  bool connecting = false;
  bool client_eof = false;
  bool server_eof = false;
  bool dead = false;  // close both sides at the end of this round
  pending_bytes to_server;
  pending_bytes to_client;
  std::uint64_t from_server = 0;  // bytes read from the server so far
  framing_tracker framing;
};

}  // namespace

struct fault_proxy::state {
  int upstream_port = 0;
  int port = 0;
  int listen_fd = -1;
  int wake_fd = -1;

  // Control, shared with the callers.
  std::mutex mutex;
  std::condition_variable applied_cv;
  fault_mode requested_mode = fault_mode::pass_through;
  corruption requested_corruption{};
  bool fresh_corruption = false;
  std::uint64_t requested = 0;
  std::uint64_t applied = 0;
  bool stopping = false;
  bool stopped = false;

  // Observations, read by the callers.
  std::atomic<fault_mode> current{fault_mode::pass_through};
  std::atomic<std::uint64_t> accepted{0};
  std::atomic<std::uint64_t> open{0};
  std::atomic<std::uint64_t> corrupted{0};
  std::atomic<std::uint64_t> relayed{0};

  // The proxy thread's own.
  fault_mode mode = fault_mode::pass_through;
  corruption settings{};
  std::mt19937_64 random{1};
  std::vector<link> links;

  std::thread thread;

  auto run() -> void;
  auto apply_control() -> bool;
  auto accept_clients() -> void;
  auto connect_upstream(link& l) -> void;
  auto close_link(link& l, bool abortive) -> void;
  auto read_client(link& l) -> void;
  auto read_server(link& l) -> void;
  auto write_client(link& l) -> void;
  auto write_server(link& l) -> void;
  auto maybe_corrupt(link& l, char* bytes, std::size_t n) -> void;
};

fault_proxy::fault_proxy(int upstream_port) : state_(std::make_unique<state>()) {
  state& s = *state_;
  s.upstream_port = upstream_port;
  s.listen_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (s.listen_fd < 0) throw system_failure("fault_proxy: socket");
  const int one = 1;
  static_cast<void>(::setsockopt(s.listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one));
  sockaddr_in a = loopback(0);
  if (::bind(s.listen_fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(s.listen_fd, 64) != 0) {
    const auto e = system_failure("fault_proxy: bind/listen");
    ::close(s.listen_fd);
    throw e;
  }
  socklen_t len = sizeof a;
  static_cast<void>(::getsockname(s.listen_fd, reinterpret_cast<sockaddr*>(&a), &len));
  s.port = ntohs(a.sin_port);
  s.wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (s.wake_fd < 0) {
    const auto e = system_failure("fault_proxy: eventfd");
    ::close(s.listen_fd);
    throw e;
  }
  try {
    s.thread = std::thread{[&s] { s.run(); }};
  } catch (...) {
    ::close(s.listen_fd);
    ::close(s.wake_fd);
    throw;
  }
}

fault_proxy::~fault_proxy() {
  state& s = *state_;
  {
    const std::lock_guard lock{s.mutex};
    s.stopping = true;
  }
  const std::uint64_t one = 1;
  static_cast<void>(::write(s.wake_fd, &one, sizeof one));
  if (s.thread.joinable()) s.thread.join();
  for (auto& l : s.links) s.close_link(l, false);
  ::close(s.listen_fd);
  ::close(s.wake_fd);
}

auto fault_proxy::port() const noexcept -> int { return state_->port; }

auto fault_proxy::route(std::string_view dsn) const -> std::string {
  std::size_t at = dsn.find("port=");
  while (at != std::string_view::npos && at != 0 && dsn[at - 1] != ' ') at = dsn.find("port=", at + 1);
  if (at == std::string_view::npos) throw std::invalid_argument{"fault_proxy::route: the DSN names no port"};
  const std::size_t digits = at + 5;
  std::size_t end = digits;
  while (end < dsn.size() && dsn[end] >= '0' && dsn[end] <= '9') ++end;
  std::string out{dsn.substr(0, digits)};
  out += std::to_string(state_->port);
  out += dsn.substr(end);
  out += " sslmode=disable gssencmode=disable";
  return out;
}

auto fault_proxy::set_mode(fault_mode mode) noexcept -> void {
  state& s = *state_;
  std::unique_lock lock{s.mutex};
  s.requested_mode = mode;
  const auto ticket = ++s.requested;
  const std::uint64_t one = 1;
  static_cast<void>(::write(s.wake_fd, &one, sizeof one));
  s.applied_cv.wait(lock, [&] { return s.applied >= ticket || s.stopped; });
}

auto fault_proxy::corrupt(const corruption& settings) noexcept -> void {
  state& s = *state_;
  std::unique_lock lock{s.mutex};
  s.requested_mode = fault_mode::corrupt;
  s.requested_corruption = settings;
  s.fresh_corruption = true;
  const auto ticket = ++s.requested;
  const std::uint64_t one = 1;
  static_cast<void>(::write(s.wake_fd, &one, sizeof one));
  s.applied_cv.wait(lock, [&] { return s.applied >= ticket || s.stopped; });
}

auto fault_proxy::mode() const noexcept -> fault_mode { return state_->current.load(); }
auto fault_proxy::accepted() const noexcept -> std::uint64_t { return state_->accepted.load(); }
auto fault_proxy::open_connections() const noexcept -> std::uint64_t { return state_->open.load(); }
auto fault_proxy::corrupted() const noexcept -> std::uint64_t { return state_->corrupted.load(); }
auto fault_proxy::relayed_to_client() const noexcept -> std::uint64_t { return state_->relayed.load(); }

// Takes the callers' requests; returns false once asked to stop.
auto fault_proxy::state::apply_control() -> bool {
  std::uint64_t n = 0;
  while (::read(wake_fd, &n, sizeof n) > 0) {
  }
  const std::lock_guard lock{mutex};
  if (stopping) {
    stopped = true;
    applied_cv.notify_all();
    return false;
  }
  if (applied == requested) return true;
  const fault_mode previous = mode;
  mode = requested_mode;
  if (fresh_corruption) {
    settings = requested_corruption;
    random.seed(settings.seed);
    corrupted.store(0);
    fresh_corruption = false;
  }
  if (mode == fault_mode::cut) {
    for (auto& l : links) close_link(l, true);
    links.clear();
  }
  if (previous == fault_mode::black_hole && mode != fault_mode::black_hole) {
    // What arrived during the silence reaches the server only now.
    for (auto& l : links) {
      if (l.server < 0 && !l.dead) connect_upstream(l);
    }
  }
  current.store(mode);
  applied = requested;
  applied_cv.notify_all();
  return true;
}

auto fault_proxy::state::close_link(link& l, bool abortive) -> void {
  if (abortive) {
    close_abortively(l.client);
    close_abortively(l.server);
  } else {
    if (l.client >= 0) ::close(l.client);
    if (l.server >= 0) ::close(l.server);
  }
  l.client = -1;
  l.server = -1;
  l.dead = true;
  open.fetch_sub(1);
}

auto fault_proxy::state::connect_upstream(link& l) -> void {
  l.server = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (l.server < 0) {
    l.dead = true;
    return;
  }
  set_no_delay(l.server);
  const sockaddr_in a = loopback(upstream_port);
  if (::connect(l.server, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0) return;
  if (errno == EINPROGRESS) {
    l.connecting = true;
    return;
  }
  // The server is down: the client learns it the way it would without the proxy, from a close.
  l.dead = true;
}

auto fault_proxy::state::accept_clients() -> void {
  for (;;) {
    const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or a transient accept error: poll reports the rest
    accepted.fetch_add(1);
    if (mode == fault_mode::cut) {
      close_abortively(fd);
      continue;
    }
    set_no_delay(fd);
    open.fetch_add(1);
    link& l = links.emplace_back();
    l.client = fd;
    if (mode != fault_mode::black_hole) connect_upstream(l);
  }
}

auto fault_proxy::state::maybe_corrupt(link& l, char* bytes, std::size_t n) -> void {
  std::uniform_real_distribution<double> chance{0.0, 1.0};
  for (std::size_t i = 0; i < n; ++i, ++l.from_server) {
    const auto role = l.framing.classify(static_cast<unsigned char>(bytes[i]));
    if (mode != fault_mode::corrupt || l.from_server < settings.skip_bytes) continue;
    if (settings.target != corruption_target::any_byte && role != settings.target) continue;
    if (settings.body_offset >= 0 && l.framing.last_body_offset() != settings.body_offset) continue;
    if (settings.max_bytes != 0 && corrupted.load() >= settings.max_bytes) continue;
    if (settings.rate < 1.0 && chance(random) >= settings.rate) continue;
    const auto bit =
        settings.bit >= 0 ? static_cast<unsigned>(settings.bit) % 8U : static_cast<unsigned>(random() % 8U);
    bytes[i] = static_cast<char>(static_cast<unsigned char>(bytes[i]) ^ (1U << bit));
    corrupted.fetch_add(1);
  }
}

auto fault_proxy::state::read_client(link& l) -> void {
  char buf[16384];
  const std::size_t room = buffer_cap - std::min(buffer_cap, l.to_server.size());
  const auto n = ::read(l.client, buf, std::min(room, sizeof buf));
  if (n > 0) {
    l.to_server.data.insert(l.to_server.data.end(), buf, buf + n);
  } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
    l.client_eof = true;
  }
}

auto fault_proxy::state::read_server(link& l) -> void {
  char buf[16384];
  const std::size_t room = buffer_cap - std::min(buffer_cap, l.to_client.size());
  const auto n = ::read(l.server, buf, std::min(room, sizeof buf));
  if (n > 0) {
    maybe_corrupt(l, buf, static_cast<std::size_t>(n));
    l.to_client.data.insert(l.to_client.data.end(), buf, buf + n);
  } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
    l.server_eof = true;
  }
}

auto fault_proxy::state::write_client(link& l) -> void {
  // Fragmenting: one byte per write and per round of the loop, with Nagle off, so that the bytes
  // leave as separate segments and the client reads messages in pieces.
  const std::size_t chunk = mode == fault_mode::fragment ? 1 : l.to_client.size();
  const auto n = ::send(l.client, l.to_client.front(), chunk, MSG_NOSIGNAL);
  if (n > 0) {
    l.to_client.consume(static_cast<std::size_t>(n));
    relayed.fetch_add(static_cast<std::uint64_t>(n));
  } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
    l.dead = true;
  }
}

auto fault_proxy::state::write_server(link& l) -> void {
  const auto n = ::send(l.server, l.to_server.front(), l.to_server.size(), MSG_NOSIGNAL);
  if (n > 0) {
    l.to_server.consume(static_cast<std::size_t>(n));
  } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
    l.dead = true;
  }
}

auto fault_proxy::state::run() -> void {
  std::vector<pollfd> fds;
  // For each link polled: its index, and where its two entries are in fds (-1: not polled).
  struct slot {
    std::size_t link;
    std::ptrdiff_t client;
    std::ptrdiff_t server;
  };
  std::vector<slot> slots;
  for (;;) {
    if (!apply_control()) return;
    fds.clear();
    slots.clear();
    fds.push_back({wake_fd, POLLIN, 0});
    fds.push_back({listen_fd, POLLIN, 0});
    // In a black hole nothing is polled: not even a peer's close is noticed.
    if (mode != fault_mode::black_hole) {
      for (std::size_t i = 0; i < links.size(); ++i) {
        link& l = links[i];
        slot sl{i, -1, -1};
        short client_events = 0;
        if (!l.client_eof && l.to_server.size() < buffer_cap) client_events |= POLLIN;
        if (!l.to_client.empty()) client_events |= POLLOUT;
        // A side with nothing to do is left out (fd -1): poll would report its hang-up again and
        // again while the other side still drains.
        sl.client = static_cast<std::ptrdiff_t>(fds.size());
        fds.push_back({client_events != 0 ? l.client : -1, client_events, 0});
        if (l.server >= 0) {
          short server_events = 0;
          if (l.connecting) {
            server_events = POLLOUT;
          } else {
            if (!l.server_eof && l.to_client.size() < buffer_cap) server_events |= POLLIN;
            if (!l.to_server.empty()) server_events |= POLLOUT;
          }
          sl.server = static_cast<std::ptrdiff_t>(fds.size());
          fds.push_back({server_events != 0 ? l.server : -1, server_events, 0});
        }
        slots.push_back(sl);
      }
    }
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if ((fds[1].revents & POLLIN) != 0) accept_clients();
    for (const slot& sl : slots) {
      link& l = links[sl.link];
      if (l.dead) continue;
      const short cr = fds[static_cast<std::size_t>(sl.client)].revents;
      const short sr = sl.server >= 0 ? fds[static_cast<std::size_t>(sl.server)].revents : short{0};
      if (l.connecting && sr != 0) {
        int error = 0;
        socklen_t len = sizeof error;
        static_cast<void>(::getsockopt(l.server, SOL_SOCKET, SO_ERROR, &error, &len));
        if (error != 0) {
          l.dead = true;  // refused: the server is down
          continue;
        }
        l.connecting = false;
        continue;
      }
      // A hang-up or error without readable data ends that side; a read reports the details.
      if ((cr & (POLLIN | POLLHUP | POLLERR)) != 0) read_client(l);
      if (!l.connecting && (sr & (POLLIN | POLLHUP | POLLERR)) != 0) read_server(l);
      if ((cr & POLLOUT) != 0 && !l.to_client.empty()) write_client(l);
      if (!l.connecting && (sr & POLLOUT) != 0 && !l.to_server.empty()) write_server(l);
      // A side that closed: deliver what it sent, then close both.
      if ((l.client_eof && l.to_server.empty()) || (l.server_eof && l.to_client.empty())) l.dead = true;
    }
    for (auto& l : links) {
      if (l.dead && (l.client >= 0 || l.server >= 0)) close_link(l, false);
    }
    std::erase_if(links, [](const link& l) { return l.dead && l.client < 0 && l.server < 0; });
  }
}

auto to_string(fault_mode mode) noexcept -> std::string_view {
  switch (mode) {
    case fault_mode::pass_through: return "pass_through";
    case fault_mode::cut: return "cut";
    case fault_mode::black_hole: return "black_hole";
    case fault_mode::fragment: return "fragment";
    case fault_mode::corrupt: return "corrupt";
  }
  return "unknown";
}

auto to_string(corruption_target target) noexcept -> std::string_view {
  switch (target) {
    case corruption_target::any_byte: return "any_byte";
    case corruption_target::message_header: return "message_header";
    case corruption_target::replication_header: return "replication_header";
    case corruption_target::pgoutput_tag: return "pgoutput_tag";
    case corruption_target::insert_value: return "insert_value";
    case corruption_target::commit_lsns: return "commit_lsns";
    case corruption_target::keepalive_position: return "keepalive_position";
  }
  return "unknown";
}

}  // namespace replicant::test
