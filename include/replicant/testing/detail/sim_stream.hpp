// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTING_DETAIL_SIM_STREAM_HPP
#define REPLICANT_TESTING_DETAIL_SIM_STREAM_HPP

// The simulated walsender's side of one streaming session, a model of replicant::server_stream:
// it hands the session loop one frame per receive (XLogData around each pgoutput message, and
// keepalives between them, some asking for a reply), records the position of every status update
// the engine sends, and ends the session when the simulator says so (a crash, or the WAL drained).
// It keeps the simulated time too: each frame takes a millisecond, and a pause holds the next frame
// back while the session loop's waits time out, each moving the time on by what it waited. What it
// has sent so far is what the simulated probe reports as the walsender's sent position.

#include <replicant/core/error.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/pipeline/server_stream.hpp>
#include <replicant/pq/replication_stream.hpp>
#include <replicant/testing/pgoutput_writer.hpp>

#include <replicant/testing/world.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace replicant::testing::detail {

class sim_stream {
 public:
  // Its time is the simulator's: no keepalive guard thread runs beside the session.
  static constexpr bool simulated_time = true;

  // One frame, owned.
  class frame_type {
   public:
    frame_type() = default;
    explicit frame_type(pgoutput::bytes b) : bytes_(std::move(b)) {}
    [[nodiscard]] auto bytes() const noexcept -> std::span<const std::byte> { return bytes_; }

   private:
    pgoutput::bytes bytes_;
  };

  // What the simulator does at the session's moments; each returns false when the process died.
  struct hooks {
    std::function<bool()> before_frame;  // a crash point before a frame is handed
    std::function<bool()> drained;       // every frame was handed: the simulator stops the pipeline
  };

  using time_point = std::chrono::steady_clock::time_point;

  // A frame to send, and the position the walsender has sent once it is (whatever a damaged
  // keepalive says).
  struct outgoing {
    pgoutput::bytes bytes;  // empty: a pause
    lsn at{};
  };

  // Over @p frames, moving the time in @p now on, and recording in @p reported the highest flush
  // position a status update reports.
  sim_stream(std::vector<outgoing> frames, hooks h, time_point& now, std::atomic<std::uint64_t>& reported)
      : frames_(std::move(frames)), hooks_(std::move(h)), now_(&now), reported_(&reported) {}

  template <class OnFrame>
  [[nodiscard]] auto receive(OnFrame&& on_frame, std::size_t max_bytes) -> result<std::size_t> {
    if (dead_) return fail(errc::connection_failed);
    if (next_ == frames_.size()) {
      if (!drained_) {
        drained_ = true;
        if (!hooks_.drained()) {
          dead_ = true;
          return fail(errc::connection_failed);
        }
      }
      return std::size_t{0};
    }
    if (max_bytes == 0 || pausing()) return std::size_t{0};
    if (!hooks_.before_frame()) {
      dead_ = true;
      return fail(errc::connection_failed);
    }
    auto& f = frames_[next_++];
    const auto n = f.bytes.size();
    sent_ = std::max(sent_, f.at);
    *now_ += std::chrono::milliseconds(1);
    on_frame(frame_type{std::move(f.bytes)});
    return n;
  }

  [[nodiscard]] auto send(std::span<const std::byte> payload) -> result<void> {
    if (dead_) return fail(errc::connection_failed);
    // A standby status update: 'r', then the written, flushed and applied positions.
    if (payload.size() >= 17 && static_cast<char>(payload[0]) == 'r') {
      std::uint64_t flush = 0;
      for (std::size_t i = 9; i < 17; ++i) flush = (flush << 8U) | static_cast<std::uint8_t>(payload[i]);
      // The keepalive guard sends from its own thread (under the session's stream mutex).
      auto seen = reported_->load();
      while (seen < flush && !reported_->compare_exchange_weak(seen, flush)) {
      }
    }
    return {};
  }

  [[nodiscard]] auto wait(int /*wake_fd*/, std::chrono::milliseconds timeout) -> result<pq::wait_outcome> {
    if (dead_) return fail(errc::connection_failed);
    if (pausing()) {
      const auto waited = std::max(timeout, std::chrono::milliseconds(1));
      *now_ += waited;
      paused_ += waited;
      if (paused_ < pause_length) return pq::wait_outcome::timed_out;
      paused_ = {};
      ++next_;
    }
    return drained_ ? pq::wait_outcome::woken : pq::wait_outcome::readable;
  }

  [[nodiscard]] auto input_waiting() noexcept -> bool { return next_ < frames_.size() && !pausing(); }
  [[nodiscard]] auto finish() -> result<void> { return {}; }
  [[nodiscard]] auto backend_pid() const noexcept -> int { return 0; }
  [[nodiscard]] auto last_sqlstate() const -> std::string { return {}; }

  // The highest position of the frames handed so far: what the server's statistics say this
  // walsender sent.
  [[nodiscard]] auto sent() const noexcept -> lsn { return sent_; }

  // The frames of a session: each message in XLogData at its position (a pause as an empty
  // frame), and a keepalive after every third, asking for a reply every other time. WAL sent
  // nothing of (a filtered stretch) is a keepalive past it, time passing, and another: a walsender
  // reading WAL that carries nothing for the slot. With @p keepalives_at, every keepalive reports
  // that position instead of the one sent (a network that damages them).
  [[nodiscard]] static auto frames_of(const std::vector<wal::message>& session, std::optional<lsn> keepalives_at = {})
      -> std::vector<outgoing> {
    std::vector<outgoing> out;
    lsn sent{};
    bool ask = false;
    const auto keepalive = [&](bool reply) {
      out.push_back({pgoutput::keepalive(keepalives_at.value_or(sent), 0, reply), sent});
    };
    for (std::size_t i = 0; i < session.size(); ++i) {
      const auto& m = session[i];
      sent = std::max(sent, m.at);
      if (m.filtered) {
        keepalive(false);
        out.push_back({{}, sent});
        keepalive(false);
        continue;
      }
      out.push_back({m.payload.empty() ? pgoutput::bytes{} : pgoutput::xlog(m.at, 0, m.payload), sent});
      if (i % 3 == 2) {
        keepalive(ask);
        ask = !ask;
      }
    }
    return out;
  }

 private:
  // The next frame is a pause: nothing to read until it has lasted its length.
  [[nodiscard]] auto pausing() const noexcept -> bool { return next_ < frames_.size() && frames_[next_].bytes.empty(); }

  std::vector<outgoing> frames_;
  hooks hooks_;
  time_point* now_;
  std::chrono::milliseconds paused_{};
  std::size_t next_ = 0;
  bool drained_ = false;
  bool dead_ = false;
  lsn sent_{};
  std::atomic<std::uint64_t>* reported_;
};

static_assert(server_stream<sim_stream>);

}  // namespace replicant::testing::detail

#endif  // REPLICANT_TESTING_DETAIL_SIM_STREAM_HPP
