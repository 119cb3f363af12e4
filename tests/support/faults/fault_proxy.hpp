// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_FAULTS_FAULT_PROXY_HPP
#define REPLICANT_TESTS_SUPPORT_FAULTS_FAULT_PROXY_HPP

/// @file
/// A loopback TCP proxy that sits between a client and a PostgreSQL server and misbehaves on
/// request: it cuts every connection, stops forwarding while keeping the sockets open, hands the
/// server's bytes over one at a time, or flips bits in them. The network fault tests put it between
/// a replication pipeline and the server (tests/integration/faults.cpp).
///
/// The proxy never logs, prints or keeps the bytes it relays: what passes through it is row data.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace replicant::test {

/// What the proxy does with the traffic of every connection, present and future.
enum class fault_mode {
  /// Relay both directions faithfully.
  pass_through,
  /// Reset every connection now (both sides, with a TCP RST); connections that arrive while the
  /// mode lasts are reset at once, as if the network refused them.
  cut,
  /// Relay nothing in either direction, and notice nothing either (not even a peer's close), while
  /// every socket stays open: a silent network. Connections that arrive are accepted and held; the
  /// server hears of them only once the mode ends.
  black_hole,
  /// Relay the server's bytes one per write (TCP_NODELAY), so the client reads every message in
  /// pieces; the client's bytes go through unchanged.
  fragment,
  /// Relay both directions, flipping one bit in some of the server's bytes: see corruption.
  corrupt,
};

/// Which of the server's bytes the `corrupt` mode may flip a bit in.
///
/// Every backend message is a type byte and a four-byte length (PostgreSQL protocol, "Message
/// Formats"); in a replication stream the messages are CopyData (`d`) whose payload starts with a
/// 25-byte XLogData (`w`) or 18-byte keepalive (`k`) header, and an XLogData then carries one
/// pgoutput message, whose first byte is its type.
enum class corruption_target {
  /// Any byte.
  any_byte,
  /// The type or length of any backend message: the framing libpq relies on.
  message_header,
  /// The replication header of a CopyData payload: its kind, WAL positions, clock and reply flag
  /// (XLogData bytes 0-24; keepalive bytes 0 and 9-17, the rest being keepalive_position).
  replication_header,
  /// The pgoutput message type (XLogData byte 25).
  pgoutput_tag,
  /// The last byte of an XLogData carrying a pgoutput insert (`I`): the end of the last column's
  /// text, a value no protocol field checks.
  insert_value,
  /// The commit LSN and end LSN of a pgoutput commit (`C`, XLogData bytes 27-42): positions a
  /// consumer stores as its checkpoint and acknowledges to the server.
  commit_lsns,
  /// The WAL position of a primary keepalive (`k`, bytes 1-8): how far the server has read, which
  /// a consumer with nothing pending may acknowledge.
  keepalive_position,
};

/**
 * The settings of the `corrupt` mode.
 *
 * A byte is *eligible* when it lies at or past `skip_bytes` in its connection's server-to-client
 * stream and belongs to `target`. Each eligible byte is corrupted with probability `rate` (one
 * random bit flipped) until `max_bytes` bytes have been corrupted in all connections together;
 * after that the proxy relays faithfully again, still in the `corrupt` mode.
 */
struct corruption {
  /// Bytes of each connection's server-to-client stream left alone first, e.g. so that the startup
  /// handshake survives and the damage lands in the replication stream.
  std::uint64_t skip_bytes = 0;
  /// How many bytes to corrupt in all; 0 for no limit.
  std::uint64_t max_bytes = 1;
  /// The chance that an eligible byte is corrupted, in [0, 1].
  double rate = 1.0;
  /// Which bytes are eligible.
  corruption_target target = corruption_target::any_byte;
  /// Seed of the proxy's random choices (which bytes, which bits), for a reproducible run.
  std::uint64_t seed = 1;
  /// When not negative, only the byte at this offset of a message's body is eligible (e.g. 4, the
  /// fourth byte of a keepalive's position), so that every message gets the same damage.
  int body_offset = -1;
  /// When not negative, the bit flipped (0 is the lowest) instead of a random one.
  int bit = -1;
};

/**
 * A TCP proxy on `127.0.0.1`, relaying every connection it accepts to one upstream port on
 * `127.0.0.1`, on a thread of its own (one `poll` loop for every socket).
 *
 * Each accepted connection gets its own connection to the upstream port. When either side closes,
 * what is still buffered for the other side is delivered and then both are closed. A client that
 * arrives while the upstream is down is closed at once. The mode can be changed at any time and
 * applies to the connections already open and to those that arrive later; set_mode() and
 * corrupt() return once the proxy thread has applied the change.
 *
 * @par Example
 * @code
 * replicant::test::fault_proxy proxy{pg.port()};
 * options.conninfo = proxy.route(pg.dsn(db));  // the pipeline now talks through the proxy
 * ...
 * proxy.set_mode(replicant::test::fault_mode::cut);
 * proxy.set_mode(replicant::test::fault_mode::pass_through);
 * @endcode
 *
 * @par Thread safety
 * Every member function may be called from any thread.
 */
class fault_proxy {
 public:
  /// Listens on a free loopback port and starts relaying to @p upstream_port, in `pass_through`.
  /// @throws std::system_error when the listening socket or the thread cannot be created.
  explicit fault_proxy(int upstream_port);
  fault_proxy(const fault_proxy&) = delete;
  auto operator=(const fault_proxy&) -> fault_proxy& = delete;
  /// Stops the thread and closes every socket. Never throws.
  ~fault_proxy();

  /// The port the proxy listens on. Never throws.
  [[nodiscard]] auto port() const noexcept -> int;

  /// @p dsn (a keyword/value connection string naming the upstream port) with the port replaced by
  /// the proxy's, and TLS and GSS encryption turned off so that the protocol bytes the proxy sees
  /// are the plain ones its corruption targets describe. @throws std::invalid_argument when @p dsn
  /// has no `port=` keyword.
  [[nodiscard]] auto route(std::string_view dsn) const -> std::string;

  /// Switches to @p mode (for `corrupt`, with the settings last given to corrupt(), by default one
  /// byte anywhere) and waits until the proxy applied it. Never throws.
  auto set_mode(fault_mode mode) noexcept -> void;

  /// Switches to `corrupt` with @p settings, a fresh budget and a fresh random generator, and
  /// waits until the proxy applied it. Never throws.
  auto corrupt(const corruption& settings) noexcept -> void;

  /// The current mode. Never throws.
  [[nodiscard]] auto mode() const noexcept -> fault_mode;

  /// Connections accepted so far. Never throws.
  [[nodiscard]] auto accepted() const noexcept -> std::uint64_t;

  /// Connections open right now (held ones included). Never throws.
  [[nodiscard]] auto open_connections() const noexcept -> std::uint64_t;

  /// Bytes corrupted since the last corrupt(). Never throws.
  [[nodiscard]] auto corrupted() const noexcept -> std::uint64_t;

  /// Server-to-client bytes relayed so far, in all connections. Never throws.
  [[nodiscard]] auto relayed_to_client() const noexcept -> std::uint64_t;

 private:
  struct state;
  std::unique_ptr<state> state_;
};

/// The name of @p mode, e.g. `"black_hole"`. Never throws.
[[nodiscard]] auto to_string(fault_mode mode) noexcept -> std::string_view;

/// The name of @p target, e.g. `"pgoutput_tag"`. Never throws.
[[nodiscard]] auto to_string(corruption_target target) noexcept -> std::string_view;

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_FAULTS_FAULT_PROXY_HPP
