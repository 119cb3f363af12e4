// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TOOLS_CAPTURE_CAPTURE_SESSION_HPP
#define REPLICANT_TOOLS_CAPTURE_CAPTURE_SESSION_HPP

/// @file
/// The recording loop behind `replicant-capture` and `replicant-record-captures`: run one
/// START_REPLICATION command and keep every CopyData payload the server sends, raw, until the
/// server reports that it has passed a given WAL position.

#include "support/wire/capture_file.hpp"

#include <replicant/core/error.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/pq/connection.hpp>
#include <replicant/pq/replication_stream.hpp>
#include <replicant/wire/framing.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace replicant::tools {

/// What to record.
struct capture_request {
  /// A libpq connection string for the database the slot belongs to; `replication=database` is
  /// added by the connection layer.
  std::string dsn{};
  /// The whole command, `START_REPLICATION SLOT <slot> LOGICAL <lsn> (<options>)`, on an existing slot.
  std::string command{};
  /// Stop once a keepalive reports the walsender at or past this position.
  lsn until{};
  /// Give up after this long (`errc::cancelled`).
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
  /// The scenario name written into the header.
  std::string scenario{};
};

/// Where the option list of a START_REPLICATION command is: the text between the first `(` and
/// the last `)`; empty when there is none.
[[nodiscard]] inline auto start_options(std::string_view command) -> std::string_view {
  const auto open = command.find('(');
  const auto close = command.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return {};
  return command.substr(open + 1, close - open - 1);
}

/**
 * Connects, runs @p request's command and records until the server has passed `request.until`.
 *
 * The loop answers like a well-behaved consumer (PROTOCOL.md §1.10): every status update reports
 * write = the highest position received and flush = the highest keepalive `walEnd`, which is safe
 * to confirm because everything before it has been received and is kept. When the stream is idle
 * it asks for a keepalive (`replyRequested`), which is how the end position is learnt promptly.
 *
 * @param request what to record.
 * @param sqlstate if not null, receives the server's SQLSTATE when the result is `server_error`
 *   (e.g. `42704` for a missing slot, `55006` for a slot in use).
 * @return the capture (header filled from the command and the server), or an error: the
 *   connection layer's (`connection_failed`, `server_error`, `invalid_options`),
 *   `errc::decode_failure` for a CopyData payload that is neither XLogData nor keepalive, or
 *   `errc::cancelled` on timeout. Errors are value-free.
 * @throws test::capture_format_error when the command has no parseable option list; std::bad_alloc.
 */
[[nodiscard]] inline auto record(const capture_request& request, std::string* sqlstate = nullptr)
    -> result<test::capture> {
  using clock = std::chrono::steady_clock;
  test::capture out;
  out.header = test::describe_options(start_options(request.command));
  out.header.scenario = request.scenario;
  out.header.end_lsn = request.until;

  auto conn = pq::connection::open(request.dsn, pq::session_kind::replication);
  if (!conn) return unexpected(conn.error());
  out.header.server_version_num = conn->server_version();
  // The stream takes the connection, which keeps the last SQLSTATE: report it on every exit.
  pq::connection* session = &*conn;
  auto stream = pq::replication_stream::start(std::move(*conn), request.command);
  if (!stream) {
    if (sqlstate != nullptr) *sqlstate = session->last_error().sqlstate;
    return unexpected(stream.error());
  }
  session = &stream->connection();
  const auto failed = [&](std::error_code ec) -> unexpected<std::error_code> {
    if (sqlstate != nullptr) *sqlstate = session->last_error().sqlstate;
    return unexpected(ec);
  };

  lsn received{};
  lsn confirmable{};
  bool reply_due = false;
  bool done = false;
  std::error_code bad_frame;
  const auto deadline = clock::now() + request.timeout;
  auto last_update = clock::now();
  auto last_data = clock::now();

  const auto send_update = [&](bool ask) -> result<void> {
    const standby_status_update update{
        .write = received,
        .flush = confirmable,
        .apply = confirmable,
        .clock = std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now()),
        .reply_requested = ask};
    last_update = clock::now();
    return stream->send(encode_status_update(update));
  };

  while (!done) {
    if (clock::now() >= deadline) return failed(make_error_code(errc::cancelled));
    auto got = stream->receive(
        [&](pq::frame&& f) {
          if (done || bad_frame) return;  // the end was seen: the rest of this batch is not kept
          const auto bytes = f.bytes();
          auto parsed = parse_copy_data(bytes);
          if (!parsed) {
            bad_frame = parsed.error();
            return;
          }
          out.records.emplace_back(bytes.begin(), bytes.end());
          last_data = clock::now();
          if (const auto* k = std::get_if<primary_keepalive>(&*parsed)) {
            received = std::max(received, k->wal_end);
            confirmable = std::max(confirmable, k->wal_end);
            reply_due = reply_due || k->reply_requested;
            done = k->wal_end >= request.until;
          } else if (const auto* w = std::get_if<xlog_data>(&*parsed)) {
            received = std::max(received, w->wal_end);
          }
        },
        std::size_t{64} * 1024 * 1024);
    if (bad_frame) return failed(bad_frame);
    if (!got) return failed(got.error());
    if (done) break;

    // Ask for a keepalive when nothing arrived for a while: its walEnd tells whether the walsender
    // has passed the end position, and the request also keeps wal_sender_timeout away.
    const auto now = clock::now();
    const bool idle = now - last_data >= std::chrono::milliseconds(200);
    if (reply_due || (idle && now - last_update >= std::chrono::milliseconds(200)) ||
        now - last_update >= std::chrono::seconds(5)) {
      if (auto sent = send_update(idle); !sent) return failed(sent.error());
      reply_due = false;
    }
    if (auto w = stream->wait(-1, std::chrono::milliseconds(100)); !w) return failed(w.error());
  }

  // Confirm what was recorded, then end the copy cleanly so the slot is released at once.
  if (auto sent = send_update(false); !sent) return failed(sent.error());
  if (auto finished = stream->finish(); !finished) return failed(finished.error());
  return out;
}

}  // namespace replicant::tools

#endif  // REPLICANT_TOOLS_CAPTURE_CAPTURE_SESSION_HPP
