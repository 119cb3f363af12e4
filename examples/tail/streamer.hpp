// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_TAIL_STREAMER_HPP
#define REPLICANT_EXAMPLES_TAIL_STREAMER_HPP

/// @file
/// replicant-tail's streaming loop, single-threaded: receive frames, decode and assemble them,
/// hand committed transactions to the sink, and acknowledge only what the sink made durable.

#include "failure.hpp"
#include "jsonl_sink.hpp"

#include <replicant/assembler.hpp>
#include <replicant/decoder/framing.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/error.hpp>
#include <replicant/lsn.hpp>
#include <replicant/pq/replication_stream.hpp>
#include <replicant/result.hpp>
#include <replicant/schema_change.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <system_error>
#include <utility>
#include <variant>
#include <vector>

namespace replicant::examples::tail {

/**
 * Runs one replication session on a started stream until a stop is requested or something fails.
 *
 * The acknowledgement rules (PROTOCOL.md section 1.10, DESIGN.md section 3):
 * - `flush` is only ever a durable position: the end LSN of a transaction the sink returned from
 *   (its lines and checkpoint are on disk), or, when nothing is being assembled, the `wal_end` of
 *   the latest keepalive (every transaction that ended before it was delivered or carried nothing
 *   for the publications: the idle advance, so a quiet publication does not pin WAL);
 * - `flush` never moves backwards;
 * - a keepalive that asks for a reply is answered at once; otherwise a status update goes out
 *   whenever `flush` moved (once per batch of frames) and every `--status-interval`.
 *
 * Delivery is synchronous: the sink runs on this thread between two reads of the socket, so a slow
 * output slows the reading and TCP holds the server back.
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe.
 */
class streamer {
 public:
  /// What a stop check asks: true when the session should end.
  using stop_predicate = std::function<bool()>;

  /**
   * A session on @p stream (already in CopyBoth), decoding pgoutput @p protocol, delivering to
   * @p sink (which must outlive the streamer).
   * @param status_interval time between periodic status updates.
   * @param messages whether non-transactional logical messages are printed.
   */
  streamer(pq::replication_stream& stream, pgoutput_protocol protocol, jsonl_sink& sink,
           std::chrono::milliseconds status_interval, bool messages)
      : stream_(&stream), assembler_(protocol), sink_(&sink), interval_(status_interval), messages_(messages) {}

  /**
   * Streams until @p stop returns true (checked between frames, and whenever @p wake_fd wakes the
   * wait), then stops cleanly: a last status update with the durable position, and CopyDone.
   *
   * @return nothing after a requested stop; otherwise the failure. A failure of the sink (output or
   * checkpoint file) also ends with a clean stop; a lost connection or malformed data does not
   * (there is nothing left to talk to, or nothing to trust).
   */
  [[nodiscard]] auto run(int wake_fd, const stop_predicate& stop) -> outcome<void> {
    next_status_ = clock::now() + interval_;
    bool more = false;
    while (!stop()) {
      if (!more) {
        auto w = stream_->wait(wake_fd, time_to_next_status());
        if (!w) return failure{.step = "waiting for the server", .code = w.error()};
      }
      if (stop()) break;
      auto got = pump(stop);
      if (!got) {
        if (!sink_failure_) return got.error();
        static_cast<void>(finish());
        return got.error();
      }
      more = *got;
      if (flush_ > sent_flush_ || clock::now() >= next_status_) {
        if (auto s = send_status(); !s) return s.error();
      }
    }
    return finish();
  }

  /// The position acknowledged to the server so far (its last status update's `flush`).
  [[nodiscard]] auto acknowledged() const noexcept -> lsn { return sent_flush_; }

 private:
  using clock = std::chrono::steady_clock;

  // The assembler's handler: every event of a decoded frame.
  struct deliver {
    streamer* self;
    auto operator()(transaction&& t) -> result<void> { return self->on_transaction(std::move(t)); }
    auto operator()(const logical_message& m) -> result<void> { return self->on_message(m); }
    auto operator()(const schema_change&) -> result<void> { return {}; }
    auto operator()(const empty_commit& e) -> result<void> { return self->on_position(e.end_lsn); }
    auto operator()(const prepared_event&) -> result<void> { return {}; }
    auto operator()(const rollback_prepared_event& e) -> result<void> { return self->on_position(e.end_lsn); }
    auto operator()(const stream_abort_event&) -> result<void> { return {}; }
  };

  [[nodiscard]] auto time_to_next_status() const -> std::chrono::milliseconds {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(next_status_ - clock::now());
    return std::max(left, std::chrono::milliseconds{0});
  }

  // Reads what the socket has and handles every complete frame. @return whether more complete
  // frames may still be buffered inside libpq (the batch hit its byte limit).
  [[nodiscard]] auto pump(const stop_predicate& stop) -> outcome<bool> {
    constexpr std::size_t batch_bytes = 8U * 1024U * 1024U;
    frames_.clear();
    auto got = stream_->receive([this](pq::frame&& f) { frames_.push_back(std::move(f)); }, batch_bytes);
    if (!got) {
      return failure{
          .step = "receiving from the server",
          .code = got.error(),
          .hint = got.error() == errc::connection_failed ? "the connection was lost or the server shut down" : "",
          .sqlstate = stream_->connection().last_error().sqlstate};
    }
    // The assembler copies what it keeps, so the frames are released as soon as they are handled.
    outcome<void> handled;
    for (const pq::frame& f : frames_) {
      if (stop()) break;
      handled = handle_frame(f.bytes());
      if (!handled) break;
    }
    frames_.clear();
    if (!handled) return handled.error();
    return *got >= batch_bytes && !stop();
  }

  [[nodiscard]] auto handle_frame(std::span<const std::byte> bytes) -> outcome<void> {
    auto msg = parse_copy_data(bytes);
    if (!msg) return failure{.step = "reading the stream", .code = msg.error(), .at = received_};
    if (const auto* k = std::get_if<primary_keepalive>(&*msg)) return on_keepalive(*k);
    const auto& w = std::get<xlog_data>(*msg);
    received_ = std::max(received_, w.wal_end);
    if (auto r = assembler_.push(w.data, deliver{this}); !r) {
      if (sink_failure_) return *sink_failure_;
      assembler_.reset();
      return failure{.step = "decoding the stream", .code = r.error(), .at = w.wal_end};
    }
    return {};
  }

  [[nodiscard]] auto on_keepalive(const primary_keepalive& k) -> outcome<void> {
    received_ = std::max(received_, k.wal_end);
    // Every frame before this keepalive has been handled; with nothing being assembled, all WAL up
    // to wal_end is either delivered durably or carried nothing for us.
    if (assembler_.idle()) flush_ = std::max(flush_, k.wal_end);
    if (k.reply_requested) return send_status();
    return {};
  }

  [[nodiscard]] auto on_transaction(transaction&& t) -> result<void> {
    auto persisted = sink_->handle_transaction(t);
    if (!persisted) {
      sink_failure_ = failure{.step = "writing a transaction", .code = persisted.error(), .at = t.commit_lsn()};
      return fail(errc::sink_failed);
    }
    flush_ = std::max(flush_, t.end_lsn());
    assembler_.recycle(std::move(t));
    return {};
  }

  [[nodiscard]] auto on_message(const logical_message& m) -> result<void> {
    if (!messages_) return {};
    if (auto r = sink_->handle_message(m); !r) {
      sink_failure_ = failure{.step = "writing a logical message", .code = r.error(), .at = m.message_lsn};
      return fail(errc::sink_failed);
    }
    return {};
  }

  // A position with nothing to deliver (an empty or rolled-back transaction): acknowledged when
  // nothing else is open, like a keepalive.
  [[nodiscard]] auto on_position(lsn end) -> result<void> {
    if (assembler_.idle()) flush_ = std::max(flush_, end);
    return {};
  }

  [[nodiscard]] auto send_status() -> outcome<void> {
    const standby_status_update update{
        .write = std::max(received_, flush_),
        .flush = flush_,
        .apply = flush_,
        .clock = std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now())};
    if (auto s = stream_->send(encode_status_update(update)); !s) {
      return failure{.step = "sending a status update", .code = s.error()};
    }
    sent_flush_ = flush_;
    next_status_ = clock::now() + interval_;
    return {};
  }

  // The clean stop: acknowledge what is durable, then CopyDone and drain (replication_stream::finish).
  [[nodiscard]] auto finish() -> outcome<void> {
    if (auto s = send_status(); !s) return s;
    if (auto f = stream_->finish(); !f) return failure{.step = "ending the stream", .code = f.error()};
    return {};
  }

  pq::replication_stream* stream_;
  assembler assembler_;
  jsonl_sink* sink_;
  std::chrono::milliseconds interval_;
  bool messages_;
  std::vector<pq::frame> frames_;
  lsn received_{};
  lsn flush_{};
  lsn sent_flush_{};
  clock::time_point next_status_{};
  std::optional<failure> sink_failure_;
};

}  // namespace replicant::examples::tail

#endif  // REPLICANT_EXAMPLES_TAIL_STREAMER_HPP
