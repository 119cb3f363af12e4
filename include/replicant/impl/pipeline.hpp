// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_IMPL_PIPELINE_HPP
#define REPLICANT_IMPL_PIPELINE_HPP

// The bodies of replicant::pipeline (included at the bottom of pipeline.hpp).

#include <replicant/detail/publication_definition.hpp>
#include <replicant/pipeline.hpp>

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <deque>
#include <string_view>
#include <utility>

namespace replicant {

namespace detail {

// What one connection of the pipeline shares between its two threads, and what the connect chain
// learned. Atomics are written by one side and read by the other; the plain fields are written by
// the connection thread before it closes the queue and read by the applier after joining it.
struct pipeline_session {
  frame_queue queue;
  std::atomic<std::uint64_t> resident{0};  // bytes the assembler holds (applier -> connection)
  std::atomic<std::uint64_t> applied{0};   // (frames applied << 1) | assembler idle
  std::atomic<bool> first_frame{false};
  std::atomic<bool> end_requested{false};     // the applier is done (stop or halt): end the session
  std::atomic<std::uint64_t> server_sent{0};  // walsender_sent(), for the idle advance (applier -> connection)
  int walsender_pid = 0;
  std::error_code error;  // why the connection thread ended, if not asked to
  std::string sqlstate;
  std::optional<std::int64_t> too_slow_lag;
  std::optional<lsn> origin;
  bool slot_created = false;
  bool standby = false;  // the server was in recovery when the session began
  std::uint32_t server_version = 0;
  std::uint32_t protocol = 0;                              // the pgoutput protocol START_REPLICATION asked for
  pgoutput_streaming streaming = pgoutput_streaming::off;  // and the streaming mode
  // What the publications published when the pipeline's first session began (pgoutput, with the
  // publication check on); the periodic check adds what was added since.
  std::optional<publication_definitions> publications;
};

inline auto read_int(std::string_view text) noexcept -> std::optional<std::int64_t> {
  std::int64_t v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc{} || r.ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

inline auto poll_readable(int fd, std::chrono::milliseconds timeout) noexcept -> bool {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(0, timeout.count()))) > 0;
}

inline auto drain_eventfd(int fd) noexcept -> void {
  std::uint64_t n = 0;
  while (::read(fd, &n, sizeof n) > 0) {
  }
}

inline auto to_halt(halt_reason reason, std::error_code cause = {}) -> halt {
  halt h;
  h.reason = reason;
  h.cause = cause;
  return h;
}

// A Commit (or Stream Commit) travels in a frame whose position is the end of its commit record
// (the walsender's write location): a commit whose own end LSN says otherwise is damaged. @p d is
// the pgoutput message the frame's payload became (for pgoutput, the payload itself): a
// translating decoder's Commit carries the end LSN its plugin sent, which must agree as well.
inline auto commit_matches_frame(std::span<const std::byte> d, const xlog_data& w) noexcept -> bool {
  std::size_t at = 0;
  if (d.size() >= 26 && static_cast<char>(d[0]) == 'C') {
    at = 10;  // 'C', flags, commit LSN, then the end LSN
  } else if (d.size() >= 30 && static_cast<char>(d[0]) == 'c') {
    at = 14;  // 'c', xid, flags, commit LSN, then the end LSN
  } else {
    return true;
  }
  std::uint64_t end = 0;
  for (std::size_t i = 0; i < 8; ++i) end = (end << 8U) | static_cast<std::uint8_t>(d[at + i]);
  return end == w.wal_end.value() && end == w.data_start.value();
}

// The error class telemetry may carry for a store fault (codes of other categories are I/O).
inline auto error_class_of(std::error_code ec) noexcept -> errc {
  return ec.category() == replicant::error_category() ? static_cast<errc>(ec.value()) : errc::io_failed;
}

// Whether a checkpoint policy's own settings are usable (a policy without settings to check is).
template <class P>
auto valid_policy(const P& p) noexcept -> bool {
  if constexpr (checks_settings<P>) {
    return p.valid();
  } else {
    return true;
  }
}

// Runs a decoder's catalog queries on @p conn (the replication connection at connect, or the
// probe connection): every field as text, NULL as empty. Only the SQLSTATE of a failure is kept.
inline auto decoder_query(pq::connection& conn) -> query_function {
  return [&conn](const std::string& sql, const std::function<void(query_row)>& visit) -> result<void> {
    auto rows = conn.exec(sql);
    if (!rows) return unexpected(rows.error());
    std::vector<std::string_view> fields;
    for (int r = 0; r < rows->rows(); ++r) {
      fields.clear();
      for (int c = 0; c < rows->columns(); ++c) fields.push_back(rows->get(r, c));
      visit(fields);
    }
    return {};
  };
}

// The halt for an error a decoder's translation (or the assembler behind it) returned: the
// assembler's spill faults have halts of their own, and so do a decoder's own findings (a commit
// without its LSN, a protocol the plugin announced that the decoder does not speak); an
// unsupported server encoding means the server cannot run this decoder; anything else is bad input.
inline auto halt_for_translation(std::error_code ec) noexcept -> halt_reason {
  if (ec == halt_reason::spill_exhausted) return halt_reason::spill_exhausted;
  if (ec == errc::io_failed) return halt_reason::spill_io_failed;
  if (ec == halt_reason::decoder_lsn_missing || ec == halt_reason::decoder_protocol_unsupported) {
    return static_cast<halt_reason>(ec.value());
  }
  if (ec == errc::unsupported_server) return halt_reason::decoder_unsupported_on_server;
  return halt_reason::decode_failure;
}

// A server that cannot load the output plugin's library (58P01, "could not access file") will not
// be able to after a retry either.
inline auto plugin_missing(std::string_view sqlstate) noexcept -> bool { return sqlstate == "58P01"; }

// How long a checkpoint write in progress at stop() may go on before it is interrupted: long
// enough for any store that works, short enough that a stop never waits long for one that hangs.
inline constexpr auto store_stop_grace = std::chrono::seconds(1);

}  // namespace detail

// One connection: what its two threads share, and the engine's side of the checkpoint policy's
// delivery (detail::delivery_services), which the policy reaches through its checkpoint_context.
template <class D, class C, class S, class Sink>
struct pipeline<D, C, S, Sink>::session final : detail::pipeline_session, detail::delivery_services {
  using delivery_type = detail::delivery_of<C, Sink>;

  explicit session(pipeline& owner) : p(owner), delivery(owner.policy_) {}

  pipeline& p;
  delivery_type delivery;                // the checkpoint policy's behaviour for this connection
  assembler* assembled = nullptr;        // the applier's, while it runs
  std::optional<halt> failed;            // why this session halts, once decided
  std::error_code spill_failed;          // a spilled transaction could not be read back
  bool advanced = false;                 // the durable position moved since the last wake

  [[nodiscard]] auto context() noexcept -> checkpoint_context<Sink> { return {*this, p.sink_}; }

  // Moves the durable position to @p to: never past an outstanding PREPARE, or the server would
  // then send only its COMMIT PREPARED.
  auto advance(lsn to) -> void {
    if (assembled != nullptr) {
      if (const auto prepared = assembled->oldest_prepare_lsn()) to = std::min(to, *prepared);
    }
    if (to.value() > p.durable_.load()) {
      p.durable_.store(to.value());
      advanced = true;  // the connection thread is woken once per batch of frames, not per transaction
    }
  }

  auto persisted(lsn commit, lsn end) -> void override {
    if (!p.checkpoint_ || *p.checkpoint_ < commit) p.checkpoint_ = commit;
    advance(end);
    p.template emit<telemetry::events::checkpoint_advanced>(telemetry::keys::commit_lsn = commit);
  }
  auto release(transaction&& t) noexcept -> void override {
    if (assembled != nullptr) assembled->recycle(std::move(t));
  }
  auto halt_with(halt h) -> void override {
    if (!failed) failed = std::move(h);
  }
  [[nodiscard]] auto halted() const noexcept -> bool override { return failed.has_value() || p.halt_.has_value(); }
  auto keep_exception(std::exception_ptr e) noexcept -> void override { p.sink_exception_ = std::move(e); }
  auto spill_unreadable(std::error_code ec) noexcept -> void override { spill_failed = ec; }
  [[nodiscard]] auto spill_failure() const noexcept -> std::error_code override { return spill_failed; }
  auto sleep(std::chrono::milliseconds d) noexcept -> void override { p.sleep_interruptible(d); }
  [[nodiscard]] auto stopping() const noexcept -> bool override { return p.stopping_.load(); }
  auto writing(bool on) noexcept -> void override {
    p.store_write_since_.store(on ? std::chrono::steady_clock::now().time_since_epoch().count() : 0);
  }
  [[nodiscard]] auto slot() const noexcept -> const slot_name& override { return *p.slot_name_; }
  [[nodiscard]] auto budget() const noexcept -> std::size_t override { return p.options_.max_inflight_bytes; }
  [[nodiscard]] auto events() const noexcept -> telemetry::dispatcher* override { return p.events_; }
};

template <class D, class C, class S, class Sink>
pipeline<D, C, S, Sink>::pipeline(Sink& sink, D decoder, C checkpoint, S spill, options_type options,
                                  telemetry::dispatcher* events)
    : sink_(sink),
      policy_(std::move(checkpoint)),
      spill_(std::move(spill)),
      decoder_(std::move(decoder)),
      options_(detail::widen(std::move(options))),
      events_(events) {
  stop_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

template <class D, class C, class S, class Sink>
pipeline<D, C, S, Sink>::~pipeline() {
  stop();
  if (stop_fd_ >= 0) ::close(stop_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::stop() noexcept -> void {
  stopping_.store(true);
  const std::uint64_t one = 1;
  // write(2) on an eventfd is async-signal-safe; a full counter (EAGAIN) is readable anyway.
  if (stop_fd_ >= 0) static_cast<void>(::write(stop_fd_, &one, sizeof one));
  if (wake_fd_ >= 0) static_cast<void>(::write(wake_fd_, &one, sizeof one));
  // A checkpoint store that hangs would otherwise keep the applier, and run(), until its timeout.
  // A checkpoint write in progress is left to finish (it makes the last delivery durable, so that
  // a clean stop repeats nothing); the connection thread ends it after store_stop_grace.
  if constexpr (detail::interruptible_policy<C>) {
    if (store_write_since_.load() == 0) policy_.interrupt();
  }
}

// After stop(): a checkpoint write that has not finished within the grace is ended, so that a
// store that hangs cannot hold the stop for its whole timeout.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::interrupt_overdue_store_write() noexcept -> void {
  if constexpr (detail::interruptible_policy<C>) {
    const auto since = store_write_since_.load();
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    if (since != 0 && std::chrono::steady_clock::duration{now - since} > detail::store_stop_grace) {
      policy_.interrupt();
    }
  }
}

template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::wake() noexcept -> void {
  const std::uint64_t one = 1;
  static_cast<void>(::write(wake_fd_, &one, sizeof one));
}

template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::sleep_interruptible(std::chrono::milliseconds d) noexcept -> void {
  static_cast<void>(detail::poll_readable(stop_fd_, d));
}

template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::halt_with(halt h) -> void {
  halt_ = std::move(h);
}

template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::run() -> void {
  std::error_code ec;
  run(ec);
  if (sink_exception_) std::rethrow_exception(std::exchange(sink_exception_, nullptr));
  if (halt_) throw error(*halt_);
}

template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::run(std::error_code& ec) noexcept -> void {
  halt_.reset();
  sink_exception_ = nullptr;
  try {
    run_loop();
    probe_.reset();
  } catch (const std::bad_alloc&) {
    halt_ = detail::to_halt(halt_reason::config_invalid, std::make_error_code(std::errc::not_enough_memory));
  }
  ec = halt_ ? make_error_code(halt_->reason) : std::error_code{};
}

// The options, and what the decoder can serve of them: everything is refused before connecting.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::validate_options() const -> result<void> {
  constexpr decoder_capabilities can = D::capabilities;
  if constexpr (can.publications) {
    if (auto v = validate(options_); !v) return v;
  } else {
    // This decoder's table set is in its own options: publications here would be ignored.
    if (!options_.publications.empty()) return fail(halt_reason::config_invalid);
    if (auto v = detail::validate_without_publications(options_); !v) return v;
  }
  if ((options_.streaming && !can.streaming) || (options_.two_phase && !can.two_phase) ||
      (options_.failover && !can.failover) || (options_.messages && !can.messages) ||
      (options_.origin && !can.origin_filter) || (options_.binary && !can.binary) ||
      (options_.protocol_version != 0 && !can.protocol_version)) {
    return fail(halt_reason::decoder_capability_unsupported);
  }
  if (options_.snapshot && !can.snapshot) return fail(halt_reason::snapshot_unsupported);
  return decoder_.validate(options_);
}

template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::run_loop() -> void {
  if (stop_fd_ < 0 || wake_fd_ < 0) {
    halt_with(detail::to_halt(halt_reason::config_invalid, std::error_code(errno, std::generic_category())));
    return;
  }
  if (auto v = validate_options(); !v) {
    halt_with(detail::to_halt(static_cast<halt_reason>(v.error().value())));
    return;
  }
  if (!detail::valid_policy(policy_)) {
    halt_with(detail::to_halt(halt_reason::config_invalid));
    return;
  }
  if (options_.messages && !detail::has_handle_message<Sink>) {
    halt_with(detail::to_halt(halt_reason::messages_unsupported));
    return;
  }
  if (options_.snapshot.mode() == snapshot_mode::point_in_time &&
      !(detail::has_handle_snapshot<Sink> && detail::has_handle_snapshot_complete<Sink>)) {
    halt_with(detail::to_halt(halt_reason::snapshot_unsupported));
    return;
  }
  if (options_.snapshot.mode() == snapshot_mode::incremental && !detail::supports_incremental_snapshot<Sink, C>) {
    halt_with(detail::to_halt(halt_reason::snapshot_unsupported));
    return;
  }
  slot_name_ = slot_name::make(options_.slot).value();

  std::uint32_t command_errors = 0;
  auto delay = options_.reconnect_delay;
  // What the publications published when the first session began: a reconnect does not take a
  // change made in the meantime as the new normal (only a new run() does).
  std::optional<detail::publication_definitions> publications;
  while (!stopping_.load()) {
    session s{*this};
    s.publications = publications;
    auto stream = connect(s);
    publications = s.publications;
    if (halt_) {
      if (halt_->reason == halt_reason::slot_invalidated || halt_->reason == halt_reason::publication_missing ||
          halt_->reason == halt_reason::decoder_table_missing ||
          halt_->reason == halt_reason::decoder_option_unsupported || halt_->reason == halt_reason::slot_missing ||
          halt_->reason == halt_reason::origin_unsupported || halt_->reason == halt_reason::failover_unsupported ||
          halt_->reason == halt_reason::slot_synced_unpromoted ||
          halt_->reason == halt_reason::two_phase_failover_conflict ||
          halt_->reason == halt_reason::slot_not_failover || halt_->reason == halt_reason::failover_slot_missing ||
          halt_->reason == halt_reason::standby_unsupported || halt_->reason == halt_reason::standby_feedback_off ||
          halt_->reason == halt_reason::checkpoint_ahead_of_server || halt_->reason == halt_reason::slot_dropped ||
          halt_->reason == halt_reason::publication_changed) {
        emit<telemetry::events::connection_slot_invalidated>(telemetry::keys::slot_name = *slot_name_,
                                                             telemetry::keys::reason = halt_->reason);
      }
      return;
    }
    if (stream) {
      const auto end = this->stream(s, std::move(*stream));
      publications = std::move(s.publications);  // with what the session's checks added to it
      if (end != session_end::reconnect) return;
      if (s.first_frame.load()) {
        command_errors = 0;
        delay = options_.reconnect_delay;
      } else if (s.error == errc::server_error) {
        ++command_errors;
      }
    } else if (stream.error() == errc::cancelled || stopping_.load()) {
      return;
    } else if (stream.error() == errc::server_error || stream.error() == errc::protocol_violation) {
      ++command_errors;  // the server refused a command before streaming: bounded
    }
    if (command_errors > options_.max_command_retries) {
      emit<telemetry::events::connection_command_error_halt>(
          telemetry::keys::attempt = command_errors, telemetry::keys::max_retries = options_.max_command_retries,
          telemetry::keys::slot_name = *slot_name_, telemetry::keys::error_class = errc::server_error);
      halt h = detail::to_halt(halt_reason::command_error_limit, make_error_code(errc::server_error));
      h.attempts = command_errors;
      if (!s.sqlstate.empty()) h.sqlstate = s.sqlstate;
      halt_with(std::move(h));
      return;
    }
    sleep_interruptible(delay);
    delay = std::min(delay * 2, options_.max_reconnect_delay);
  }
}

// Calls the sink, turning an exception into an error (the exception is kept for run() to rethrow).
template <class D, class C, class S, class Sink>
template <class Call>
auto pipeline<D, C, S, Sink>::call_sink(Call call) -> decltype(call()) {
  try {
    return call();
  } catch (...) {
    sink_exception_ = std::current_exception();
    return fail(errc::sink_failed);
  }
}

// The checkpoint to resume after, as the checkpoint policy decides (the sink's, a store's). On
// failure the session has halted, unless stop() interrupted a store retry.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::read_checkpoint(session& s) -> result<std::optional<lsn>> {
  auto ctx = s.context();
  auto resumed = s.delivery.resume(ctx);
  // A policy that failed without deciding a halt: a sink or store fault all the same, unless stop()
  // interrupted it.
  if (!resumed && !s.failed && !stopping_.load()) s.failed = detail::to_halt(halt_reason::sink_failed, resumed.error());
  return resumed;
}

// Moves a halt the session's delivery decided during the connect chain to the pipeline's; true
// when there was one.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::adopt_halt(session& s) -> bool {
  if (s.failed) halt_with(std::move(*std::exchange(s.failed, std::nullopt)));
  return halt_.has_value();
}

// Whether every requested publication exists, asked on @p conn (a walsender or an ordinary session).
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::publications_exist(pq::connection& conn) -> result<bool> {
  std::string pubs;
  for (const auto& p : options_.publications) {
    if (!pubs.empty()) pubs += ", ";
    pubs += quote_literal(p).value();
  }
  auto found = conn.exec("SELECT count(DISTINCT pubname) FROM pg_publication WHERE pubname IN (" + pubs + ")");
  if (!found) return unexpected(found.error());
  std::vector<std::string_view> names(options_.publications.begin(), options_.publications.end());
  std::sort(names.begin(), names.end());
  const auto distinct = static_cast<std::int64_t>(std::unique(names.begin(), names.end()) - names.begin());
  return detail::read_int(found->get(0, 0)).value_or(-1) == distinct;
}

// The applier's ordinary connection for its periodic work (publication checks, heartbeats), opened
// when first needed and again after a failure. False when it cannot be opened now.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::open_probe() -> bool {
  if (probe_) return true;
  pq::connect_options copts;
  copts.timeout = options_.connect_timeout;
  copts.cancel_fd = stop_fd_;
  copts.command_cancel_fd = stop_fd_;
  copts.command_timeout = std::min(options_.connect_timeout, std::chrono::milliseconds(std::chrono::seconds(10)));
  auto opened = pq::connection::open(options_.conninfo, pq::session_kind::normal, copts);
  if (!opened) return false;
  probe_.emplace(std::move(*opened));
  return true;
}

// Runs the heartbeat statement; a failure is left to the next beat (the stream itself reports
// what is wrong with the server).
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::heartbeat() -> void {
  if (!open_probe()) return;
  auto beat = probe_->exec(options_.heartbeat_statement);
  if (!beat) {
    // A heartbeat that failed is reported; one that stop() cancelled did not fail.
    if (beat.error() != errc::cancelled) {
      emit<telemetry::events::connection_heartbeat>(telemetry::keys::error_class =
                                                        detail::error_class_of(beat.error()));
    }
    probe_.reset();
    return;
  }
  std::optional<lsn> at;
  if (beat->rows() > 0 && beat->columns() > 0) {
    if (auto parsed = parse_lsn(beat->get(0, 0))) at = *parsed;
  }
  if (at) {
    emit<telemetry::events::connection_heartbeat>(telemetry::keys::commit_lsn = *at);
  } else {
    emit<telemetry::events::connection_heartbeat>();
  }
}

// What the server's statistics say the walsender @p pid has sent, read on the probe connection.
// This is the idle advance's second source besides the keepalives, which travel in the stream and
// which a damaged network could alter: a slot is never advanced past a position both name.
// Nothing when it cannot be read now.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::walsender_sent(int pid) -> std::optional<lsn> {
  if (!open_probe()) return std::nullopt;
  auto found = probe_->exec("SELECT sent_lsn FROM pg_stat_replication WHERE pid = " + std::to_string(pid));
  if (!found) {
    probe_.reset();
    return std::nullopt;
  }
  if (found->rows() != 1 || found->columns() != 1 || found->is_null(0, 0)) return std::nullopt;
  auto sent = parse_lsn(found->get(0, 0));
  return sent ? std::optional<lsn>{*sent} : std::nullopt;
}

// The periodic publication check while streaming, on an ordinary connection of its own (kept open
// between checks). PostgreSQL 18 skips a dropped publication with a warning instead of ending the
// stream, so without this a drop would silently narrow what the sink receives. Returns false only
// when a publication is known to be missing; a failed check is left to the next one.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::publications_still_exist() -> bool {
  if (!open_probe()) return true;
  auto found = publications_exist(*probe_);
  if (!found) {
    probe_.reset();
    return true;
  }
  return *found;
}

// The snapshot start mode: reads every published table as of @p exported into the sink, then
// hands it the consistent point, and makes that the checkpoint. False on failure (halt_ is set,
// unless stop() interrupted it, which leaves the snapshot incomplete for the next start to report).
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::read_snapshot(session& s, const exported_snapshot& exported) -> bool {
  if constexpr (detail::has_handle_snapshot<Sink> && detail::has_handle_snapshot_complete<Sink>) {
    const auto started = std::chrono::steady_clock::now();
    emit<telemetry::events::snapshot_started>(telemetry::keys::commit_lsn = exported.consistent_point);
    const auto failed = [&](halt_reason why, std::error_code cause) {
      if (stopping_.load() || cause == errc::cancelled) return false;
      emit<telemetry::events::snapshot_failed>(telemetry::keys::reason = why,
                                               telemetry::keys::error_class = detail::error_class_of(cause));
      halt_with(detail::to_halt(why, cause));
      return false;
    };
    pq::connect_options copts;
    copts.timeout = options_.connect_timeout;
    copts.cancel_fd = stop_fd_;
    copts.command_cancel_fd = stop_fd_;
    auto conn = pq::connection::open(options_.conninfo, pq::session_kind::normal, copts);
    if (!conn) return failed(halt_reason::snapshot_failed, conn.error());
    std::optional<std::error_code> sink_error;
    const auto deliver = [&](const snapshot_batch& batch, const snapshot_context& ctx) -> result<void> {
      auto stored = call_sink([&] { return sink_.handle_snapshot(batch, ctx); });
      if (!stored) {
        sink_error = stored.error();
        return stored;
      }
      REPLICANT_FAULT_POINT("mid_snapshot");
      if (ctx.last_for_table) {
        emit<telemetry::events::snapshot_table_completed>(
            telemetry::keys::table = batch.table(),
            telemetry::keys::change_count = ctx.table_rows_before + batch.size());
      }
      return {};
    };
    snapshot_options so;
    so.batch_rows = options_.snapshot_batch_rows;
    so.cancel_fd = stop_fd_;
    auto summary = read_point_in_time_snapshot(*conn, exported, options_.publications, deliver, so);
    if (!summary) {
      if (sink_error) return failed(halt_reason::sink_failed, *sink_error);
      if (summary.error() == halt_reason::publication_missing) return failed(halt_reason::publication_missing, {});
      return failed(halt_reason::snapshot_failed, summary.error());
    }
    auto completed = call_sink([&] { return sink_.handle_snapshot_complete(summary->consistent_point); });
    if (!completed) return failed(halt_reason::sink_failed, completed.error());
    {
      auto ctx = s.context();
      auto taken = s.delivery.snapshot_taken(ctx, summary->consistent_point);
      if (!taken) {
        adopt_halt(s);
        return false;
      }
    }
    REPLICANT_FAULT_POINT("snapshot_handoff");
    checkpoint_ = summary->consistent_point;
    resumed_from_.store(checkpoint_->value());
    emit<telemetry::events::snapshot_completed>(telemetry::keys::duration = std::chrono::steady_clock::now() - started,
                                                telemetry::keys::commit_lsn = summary->consistent_point,
                                                telemetry::keys::change_count = summary->rows);
    return true;
  } else {
    static_cast<void>(s);
    static_cast<void>(exported);
    halt_with(detail::to_halt(halt_reason::snapshot_unsupported));
    return false;
  }
}

// The connect chain: each step value-free on failure. A transient failure returns its error code
// (the caller reconnects); a decision to stop for good sets halt_.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::connect(session& s) -> result<pq::replication_stream> {
  pq::connect_options copts;
  copts.timeout = options_.connect_timeout;
  copts.cancel_fd = stop_fd_;
  copts.command_cancel_fd = stop_fd_;
  auto opened = pq::connection::open(options_.conninfo, pq::session_kind::replication, copts);
  if (!opened) return unexpected(opened.error());
  pq::connection conn = std::move(*opened);
  const auto server_failed = [&](std::error_code ec) {
    s.sqlstate = conn.last_error().sqlstate;
    return unexpected(ec);
  };

  // IDENTIFY_SYSTEM on the replication connection itself: the identity the sink may check.
  auto ident = conn.exec("IDENTIFY_SYSTEM");
  if (!ident) return server_failed(ident.error());
  if (ident->rows() != 1 || ident->columns() < 4) return fail(errc::protocol_violation);
  session_identity identity;
  identity.system_identifier = std::string{ident->get(0, 0)};
  identity.timeline = detail::read_int(ident->get(0, 1)).value_or(0);
  identity.xlogpos = parse_lsn(ident->get(0, 2)).value_or(lsn{});
  identity.database = std::string{ident->get(0, 3)};
  if constexpr (detail::has_handle_session_identity<Sink>) {
    const session_context ctx{options_.slot, options_.publications};
    if (auto verdict = sink_.handle_session_identity(identity, ctx); !verdict) {
      emit<telemetry::events::connection_session_identity_rejected>(telemetry::keys::reason =
                                                                        halt_reason::session_identity_rejected);
      halt_with(detail::to_halt(halt_reason::session_identity_rejected, verdict.error()));
      return fail(errc::halted);
    }
  }

  // Server version: pgoutput protocol 3 needs 15; 4 needs 16. Every decoder needs 15 (pgoutput
  // itself exists from 10, and a server older than that has no pgoutput at all).
  s.server_version = static_cast<std::uint32_t>(conn.server_version());
  if (s.server_version < 150000) {
    halt_with(detail::to_halt(halt_reason::decoder_unsupported_on_server, make_error_code(errc::unsupported_server)));
    return fail(errc::halted);
  }
  if (options_.failover && s.server_version < 170000) {
    halt_with(detail::to_halt(halt_reason::failover_unsupported, make_error_code(errc::unsupported_server)));
    return fail(errc::halted);
  }
  if (options_.origin && s.server_version < 160000) {
    halt_with(detail::to_halt(halt_reason::origin_unsupported, make_error_code(errc::unsupported_server)));
    return fail(errc::halted);
  }
  if (options_.failover && options_.two_phase && s.server_version < 180000) {
    // PostgreSQL 17 creates such a slot, but its slot sync leaves two_phase_at behind: after a
    // failover a transaction prepared before that point could be skipped. 18 syncs it.
    halt_with(detail::to_halt(halt_reason::two_phase_failover_conflict, make_error_code(errc::unsupported_server)));
    return fail(errc::halted);
  }

  // Recovery check, then the slot's state with the columns this version has.
  auto recovery = conn.exec("SELECT pg_is_in_recovery(), current_setting('hot_standby_feedback')");
  if (!recovery) return server_failed(recovery.error());
  if (recovery->rows() != 1 || recovery->columns() != 2) return fail(errc::protocol_violation);
  const bool in_recovery = recovery->get(0, 0) == "t";
  s.standby = in_recovery;
  const auto slot_literal = quote_literal(options_.slot).value();
  std::string slot_query = "SELECT confirmed_flush_lsn, wal_status";
  if (s.server_version >= 160000) slot_query += ", conflicting";
  if (s.server_version >= 170000) slot_query += ", invalidation_reason, synced, failover";
  slot_query += " FROM pg_replication_slots WHERE slot_name = " + slot_literal + " AND slot_type = 'logical'";
  auto slot_row = conn.exec(slot_query);
  if (!slot_row) return server_failed(slot_row.error());
  const bool slot_exists = slot_row->rows() == 1;
  std::optional<lsn> confirmed_flush;
  if (slot_exists) {
    bool invalidated = slot_row->get(0, 1) == "lost";
    if (s.server_version >= 160000 && s.server_version < 170000) invalidated |= slot_row->get(0, 2) == "t";
    if (s.server_version >= 170000) {
      invalidated |= !slot_row->is_null(0, 3);
      if (in_recovery && slot_row->get(0, 4) == "t") {
        halt_with(detail::to_halt(halt_reason::slot_synced_unpromoted));
        return fail(errc::halted);
      }
    }
    if (invalidated) {
      halt_with(detail::to_halt(halt_reason::slot_invalidated));
      return fail(errc::halted);
    }
    if (auto at = parse_lsn(slot_row->get(0, 0))) confirmed_flush = *at;
  }
  if (in_recovery) {
    // Logical decoding on a standby arrived in PostgreSQL 16. It needs the standby to tell the
    // primary which catalog rows its slots still read: without that feedback the primary's vacuum
    // removes them and the server invalidates the slot (rows_removed), which costs a resync.
    if (s.server_version < 160000) {
      halt_with(detail::to_halt(halt_reason::standby_unsupported, make_error_code(errc::unsupported_server)));
      return fail(errc::halted);
    }
    if (recovery->get(0, 1) != "on") {
      halt_with(detail::to_halt(halt_reason::standby_feedback_off));
      return fail(errc::halted);
    }
  }
  // Failover asked (17+, the version step saw to that): the slot must be a failover slot, or be
  // created as one here, which a standby cannot do. A slot that is one without being asked is
  // fine: a promoted standby's synced slot is, whatever the pipeline now says.
  if (options_.failover && (slot_exists ? slot_row->get(0, 5) != "t" : in_recovery)) {
    halt_with(detail::to_halt(halt_reason::slot_not_failover));
    return fail(errc::halted);
  }

  // A slot made for another output plugin (say, pgoutput's, before the decoder was changed) would
  // refuse this decoder's options at START on every retry.
  if (slot_exists) {
    auto plugin = conn.exec("SELECT plugin FROM pg_catalog.pg_replication_slots WHERE slot_name = " + slot_literal);
    if (!plugin) return server_failed(plugin.error());
    if (plugin->rows() == 1 && plugin->get(0, 0) != D::plugin_name) {
      halt_with(detail::to_halt(halt_reason::slot_plugin_mismatch));
      return fail(errc::halted);
    }
  }

  // Every requested publication must exist: a missing one would silently narrow the stream.
  if constexpr (D::capabilities.publications) {
    auto found = publications_exist(conn);
    if (!found) return server_failed(found.error());
    if (!*found) {
      halt_with(detail::to_halt(halt_reason::publication_missing));
      return fail(errc::halted);
    }
    // What they publish now: the periodic check compares against it, since a table removed from a
    // publication (or a new row filter, a column list) vanishes from the stream without a word. A
    // reconnect compares with what the first session began with, and halts as the check would.
    if (options_.publication_check_interval.count() > 0) {
      if (s.publications) {
        auto changed = detail::check_publication_definitions(conn, options_.publications, *s.publications);
        if (!changed) return server_failed(changed.error());
        if (*changed) {
          halt_with(std::move(**changed));
          return fail(errc::halted);
        }
      } else {
        auto defined = detail::read_publication_definitions(conn, options_.publications);
        if (!defined) return server_failed(defined.error());
        s.publications = std::move(*defined);
      }
    }
  }
  // A decoder that describes its tables from the catalog reads it now, and checks its own table
  // set (wal2json: every table exists and has a key; pglogical: the sets and the node exist).
  if constexpr (D::capabilities.catalog) {
    auto prepared = decoder_.prepare(detail::decoder_query(conn));
    if (!prepared) return server_failed(prepared.error());
    if (*prepared) {
      halt_with(std::move(**prepared));
      return fail(errc::halted);
    }
  }

  // The checkpoint (the sink's or the store's), then the start-mode guard.
  auto checkpoint = read_checkpoint(s);
  if (!checkpoint) return fail(adopt_halt(s) ? errc::halted : errc::cancelled);
  checkpoint_ = *checkpoint;
  // Every checkpoint is a position this server's WAL has passed (a commit, or a snapshot's
  // consistent point), so one past its end comes from another history: a store shared between
  // clusters, a server restored from a backup, a standby promoted before it had what the sink has.
  // Streaming from it would skip every transaction below it without a trace. (A checkpoint ahead
  // of the slot but within the WAL is ordinary: a slot whose last acknowledgement was lost in a
  // crash. Streaming starts at the checkpoint, and whatever the server sends at or below it is
  // skipped.)
  if (checkpoint_ && identity.xlogpos.is_valid() && *checkpoint_ > identity.xlogpos) {
    halt h = detail::to_halt(halt_reason::checkpoint_ahead_of_server);
    h.at = *checkpoint_;
    halt_with(std::move(h));
    return fail(errc::halted);
  }
  if (checkpoint_) resumed_from_.store(checkpoint_->value());
  if (!checkpoint_ && !options_.go_forward_only && !options_.snapshot) {
    halt_with(detail::to_halt(halt_reason::go_forward_required));
    return fail(errc::halted);
  }
  // A snapshot is taken with the slot's creation; a slot that exists without a checkpoint is what an
  // interrupted snapshot leaves behind, and its exported snapshot is gone.
  const bool take_snapshot = !checkpoint_ && options_.snapshot.mode() == snapshot_mode::point_in_time;
  if (take_snapshot && slot_exists) {
    halt_with(detail::to_halt(halt_reason::snapshot_incomplete));
    return fail(errc::halted);
  }

  // Create the slot if absent (persistent: an error on this connection would drop a temporary one).
  // After the guard, so that a refused start leaves nothing behind.
  const auto slot_ident = quote_identifier(options_.slot).value();
  if (!slot_exists && !options_.create_slot) {
    halt_with(detail::to_halt(halt_reason::slot_missing));
    return fail(errc::halted);
  }
  if (!slot_exists && options_.failover && checkpoint_) {
    // A failover slot that should be here is not: most likely a promoted standby that had not
    // synced it. A new one would begin at the present, after a gap nobody would see.
    halt_with(detail::to_halt(halt_reason::failover_slot_missing));
    return fail(errc::halted);
  }
  if (!slot_exists && checkpoint_ && !detail::has_handle_slot_origin<Sink>) {
    // The same for any slot: the checkpoint belongs to a slot that is gone (dropped, or this is
    // another server or slot name). A sink that judges origins is asked instead, below.
    halt_with(detail::to_halt(halt_reason::slot_dropped));
    return fail(errc::halted);
  }
  if (!slot_exists) {
    std::string create = "CREATE_REPLICATION_SLOT " + slot_ident + " LOGICAL " + std::string{D::plugin_name} +
                         " (SNAPSHOT '" + (take_snapshot ? "export" : "nothing") + "'";
    if (options_.failover) create += ", FAILOVER";
    if (options_.two_phase) create += ", TWO_PHASE";
    create += ")";
    auto created = conn.exec(create);
    if (!created) {
      if (detail::plugin_missing(conn.last_error().sqlstate)) {
        halt h = detail::to_halt(halt_reason::decoder_unsupported_on_server, created.error());
        h.sqlstate = conn.last_error().sqlstate;
        halt_with(std::move(h));
        return fail(errc::halted);
      }
      if (conn.last_error().sqlstate != "42710") return server_failed(created.error());
      // Created concurrently by someone else: it exists now, which is what we wanted.
    } else {
      s.slot_created = true;
      if (auto at = parse_lsn(created->get(0, 1))) s.origin = *at;
      if (take_snapshot) {
        // Nothing may run on this connection before the snapshot is read: it would end the export.
        const exported_snapshot exported{std::string{created->get(0, 2)}, s.origin.value_or(lsn{})};
        if (!read_snapshot(s, exported)) return fail(halt_ ? errc::halted : errc::cancelled);
      }
    }
  }
  if (take_snapshot && !checkpoint_) {
    // Someone else created the slot in the meantime: no snapshot of ours to read.
    halt_with(detail::to_halt(halt_reason::snapshot_incomplete));
    return fail(errc::halted);
  }

  if constexpr (detail::has_handle_slot_origin<Sink>) {
    if (!s.slot_created) {
      if (!confirmed_flush) {
        halt_with(detail::to_halt(halt_reason::slot_origin_unavailable));
        return fail(errc::halted);
      }
      s.origin = std::max(*confirmed_flush, checkpoint_.value_or(lsn{}));
    }
    if (!s.origin || !s.origin->is_valid()) {
      halt_with(detail::to_halt(halt_reason::slot_origin_unavailable));
      return fail(errc::halted);
    }
    const slot_origin_context ctx{options_.slot, !s.slot_created};
    if (auto verdict = sink_.handle_slot_origin(*s.origin, ctx); !verdict) {
      halt_with(detail::to_halt(halt_reason::slot_origin_rejected, verdict.error()));
      return fail(errc::halted);
    }
  }

  // The incremental snapshot: its progress, its reader, and its arming before anything streams.
  if (auto backfill = prepare_backfill(s); !backfill) return unexpected(backfill.error());

  // START_REPLICATION with what the decoder asks of this server (pgoutput: the highest protocol the
  // server speaks, or the one asked for).
  const decoder_context ctx{s.server_version, options_};
  auto request = decoder_.negotiate(ctx);
  if (!request) {
    halt_with(detail::to_halt(halt_reason::config_invalid, request.error()));
    return fail(errc::halted);
  }
  s.protocol = request->protocol.version;
  s.streaming = request->protocol.streaming;
  // The incremental snapshot's watermarks are logical messages (only pgoutput serves that mode).
  if (options_.snapshot.mode() == snapshot_mode::incremental && !options_.messages) {
    request->options += ", messages 'true'";
  }
  // The server starts after the greater of this position and the slot's acknowledged one. The
  // checkpoint saves re-sending what the sink has; with two-phase decoding it may lie past the
  // PREPARE of a transaction still outstanding, whose changes would then never be sent again, so
  // the slot's own position (never past such a PREPARE, see applier::advance) is used instead.
  const lsn start_at = options_.two_phase ? lsn{} : checkpoint_.value_or(lsn{});
  const auto start_command = [&](const std::string& plugin_options) {
    return "START_REPLICATION SLOT " + slot_ident + " LOGICAL " + to_string(start_at) + " (" + plugin_options + ")";
  };
  decoder_.begin_session(ctx);
  const pq::stream_options stream_options{.receive_low_water_bytes =
                                              static_cast<int>(options_.receive_low_water_bytes)};
  auto started = pq::replication_stream::start(std::move(conn), start_command(request->options), stream_options);
  if (!started) {
    // A failed start leaves conn as it was. A plugin that cannot be loaded will not load on retry.
    if (detail::plugin_missing(conn.last_error().sqlstate)) {
      halt h = detail::to_halt(halt_reason::decoder_unsupported_on_server, started.error());
      h.sqlstate = conn.last_error().sqlstate;
      halt_with(std::move(h));
      return fail(errc::halted);
    }
    if (request->fallback_options && started.error() == errc::server_error) {
      // The probe: the same START without the options some builds of the plugin do not know. If
      // that one starts, the plugin refused what was asked for, and a retry would be refused too.
      const std::string sqlstate = conn.last_error().sqlstate;
      auto probe = pq::replication_stream::start(std::move(conn), start_command(*request->fallback_options));
      if (probe) {
        static_cast<void>(probe->finish());  // nothing was acknowledged: the slot stays where it was
        halt h = detail::to_halt(halt_reason::decoder_option_unsupported, started.error());
        h.sqlstate = sqlstate;
        halt_with(std::move(h));
        return fail(errc::halted);
      }
    }
    return server_failed(started.error());
  }
  s.queue.clear();
  return started;
}

// The applier side of a session: decodes, and delivers through the checkpoint policy's delivery;
// the connection thread runs beside it.
template <class D, class C, class S, class Sink>
struct pipeline<D, C, S, Sink>::applier {
  applier(pipeline& owner, session& ses, assembler&& assembled)
      : p(owner), s(ses), asm_(std::move(assembled)), ctx(ses.context()), failed(ses.failed) {
    s.assembled = &asm_;
  }
  applier(const applier&) = delete;
  auto operator=(const applier&) -> applier& = delete;
  ~applier() { s.assembled = nullptr; }

  pipeline& p;
  session& s;
  assembler asm_;
  checkpoint_context<Sink> ctx;
  std::optional<halt>& failed;       // the session's halt, once decided
  std::optional<lsn> last_commit{};  // of the transaction delivered last in this session

  auto advance(lsn to) -> void { s.advance(to); }

  auto stop_with(halt h) -> result<void> { return ctx.halt_with(std::move(h)); }

  // Whether delivered or collected transactions wait for their checkpoint.
  [[nodiscard]] auto holding() const noexcept -> bool { return s.delivery.holding(); }

  // Bytes held: the transactions being assembled, and what the delivery holds.
  [[nodiscard]] auto resident_bytes() const noexcept -> std::size_t {
    return asm_.resident_bytes() + s.delivery.resident_bytes();
  }

  // When what the delivery holds must be handed over at the latest.
  [[nodiscard]] auto due() const noexcept -> std::optional<std::chrono::steady_clock::time_point> {
    return s.delivery.due();
  }

  // Hands over what the delivery holds (before a message, a schema change, a chunk; at a stop).
  auto flush() -> result<void> { return checked(s.delivery.flush(ctx)); }

  // Lets time pass for the delivery (a batch's timer).
  auto tick(std::chrono::steady_clock::time_point now) -> result<void> { return checked(s.delivery.tick(ctx, now)); }

  // A delivery that failed without deciding a halt (a user's policy may) halts as a sink failure,
  // unless stop() interrupted it: nothing past it is acknowledged either way.
  auto checked(result<void> r) -> result<void> {
    if (!r && !failed && !ctx.stopping()) {
      halt h = detail::to_halt(halt_reason::sink_failed, r.error());
      h.at = last_commit;
      failed = std::move(h);
    }
    return r;
  }

  auto operator()(transaction&& t) -> result<void> {
    // Commits arrive in commit order: one that goes backwards is damaged.
    if (last_commit && t.commit_lsn() <= *last_commit) return fail(errc::protocol_violation);
    last_commit = t.commit_lsn();
    // The incremental snapshot sees every transaction first; its watermarks stop there.
    if (p.backfill_.reconciler) {
      if (auto handled = p.backfill_transaction(*this, t)) return *handled;
    }
    if (p.checkpoint_ && t.commit_lsn() <= *p.checkpoint_) {
      // Already persisted (the server sends acknowledged transactions again after some restarts):
      // skip it; it is durable, so its end may be acknowledged.
      if (!holding()) advance(t.end_lsn());
      asm_.recycle(std::move(t));
      return {};
    }
    const auto bytes = t.byte_size() + t.spilled_bytes();
    if (t.streamed()) {
      p.template emit<telemetry::events::stream_committed>(telemetry::keys::commit_lsn = t.commit_lsn(),
                                                           telemetry::keys::byte_size = bytes,
                                                           telemetry::keys::change_count = t.change_count());
    }
    p.template emit<telemetry::events::transaction_assembled>(telemetry::keys::commit_lsn = t.commit_lsn(),
                                                              telemetry::keys::change_count = t.change_count(),
                                                              telemetry::keys::byte_size = bytes);
    return checked(s.delivery.deliver(ctx, std::move(t)));
  }

  auto operator()(const logical_message& m) -> result<void> {
    p.template emit<telemetry::events::message_received>(telemetry::keys::commit_lsn = m.message_lsn,
                                                         telemetry::keys::byte_size = m.content.size(),
                                                         telemetry::keys::transactional = false);
    if constexpr (detail::has_handle_message<Sink>) {
      if (!p.options_.messages) return {};
      // The sink sees events in commit order: what is held goes first.
      if (auto r = flush(); !r) return r;
      auto handled = ctx.call_sink([&] { return p.sink_.handle_message(m, message_context{m.message_lsn}); });
      if (!handled) {
        halt h = detail::to_halt(halt_reason::sink_failed, handled.error());
        h.at = m.message_lsn;
        return stop_with(std::move(h));
      }
      advance(m.message_lsn);
    }
    return {};
  }

  auto operator()(const schema_change& c) -> result<void> {
    const table_ref table{c.schema, c.table};
    p.backfill_reshaped(*this, c);  // a table being backfilled: its reader lists it again
    if (c.kind != schema_change_kind::destructive) {
      p.template emit<telemetry::events::schema_change_additive>(telemetry::keys::table = table,
                                                                 telemetry::keys::kind = telemetry::kind::additive);
      return {};
    }
    // Whatever committed before the change is delivered before the sink hears of it.
    if (auto r = flush(); !r) return r;
    auto refuse = [&](halt_reason why, std::error_code cause) {
      p.template emit<telemetry::events::schema_change_halted>(telemetry::keys::table = table,
                                                               telemetry::keys::kind = telemetry::kind::destructive,
                                                               telemetry::keys::reason = why);
      halt h = detail::to_halt(why, cause);
      h.table = table_name{c.schema, c.table};
      return stop_with(std::move(h));
    };
    if constexpr (detail::has_handle_schema_change<Sink>) {
      auto verdict = ctx.call_sink([&] { return p.sink_.handle_schema_change(c); });
      if (!verdict) return refuse(halt_reason::schema_change_rejected, verdict.error());
      return {};
    } else {
      return refuse(halt_reason::schema_change_destructive, {});
    }
  }

  auto operator()(const empty_commit& e) -> result<void> {
    // Nothing published in it: a state mirror may move past it (unless transactions before it still
    // wait for their checkpoint); an append log keeps its position.
    if (detail::kind_of<Sink>() == sink_kind::state_mirror && !holding()) advance(e.end_lsn);
    return {};
  }
  auto operator()(const prepared_event& e) -> result<void> {
    if constexpr (detail::has_handle_prepare<Sink>) {
      auto seen = ctx.call_sink([&] { return p.sink_.handle_prepare(e); });
      if (!seen) {
        halt h = detail::to_halt(halt_reason::sink_failed, seen.error());
        h.at = e.prepare_lsn;
        return stop_with(std::move(h));
      }
    } else {
      static_cast<void>(e);
    }
    return {};
  }
  auto operator()(const rollback_prepared_event& e) -> result<void> {
    // Nothing to deliver; as for an empty commit, a state mirror may move past it.
    return (*this)(empty_commit{e.end_lsn});
  }
  auto operator()(const stream_abort_event& e) -> result<void> {
    p.template emit<telemetry::events::stream_aborted>(telemetry::keys::change_count = e.dropped_changes);
    return {};
  }
};

template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::stream(session& s, pq::replication_stream&& stream) -> session_end {
  emit<telemetry::events::connection_connected>(telemetry::keys::kind =
                                                    s.standby ? telemetry::kind::standby : telemetry::kind::primary);
  emit<telemetry::events::connection_slot_active>(telemetry::keys::slot_name = *slot_name_,
                                                  telemetry::keys::commit_lsn = checkpoint_.value_or(lsn{}));
  applier a{*this, s, assembler{pgoutput_protocol{.version = s.protocol, .streaming = s.streaming}}};
  {
    // The spill policy readies its storage for this session (a failure halts at once, before any
    // frame is applied), then says whether and when the assembler spills, into parts it makes.
    const spill_context spill_ctx{options_.slot, options_.max_inflight_bytes};
    if (auto ready = spill_.prepare(spill_ctx); !ready) {
      a.failed = detail::to_halt(halt_reason::spill_io_failed, ready.error());
      s.end_requested.store(true);
    } else if (const std::optional<spill_limits> limits = std::as_const(spill_).limits(spill_ctx)) {
      a.asm_.enable_spill(*limits, [this, spill_ctx] { return spill_.open(spill_ctx); });
    }
  }
  detail::drain_eventfd(wake_fd_);
  start_backfill();  // the incremental snapshot's reader, when this session has one
  s.walsender_pid = stream.connection().backend_pid();
  std::thread connection{[&] { connection_loop(s, stream); }};

  std::uint64_t applied = 0;
  const bool check_publications = D::capabilities.publications && options_.publication_check_interval.count() > 0;
  auto next_publication_check = std::chrono::steady_clock::now() + options_.publication_check_interval;
  [[maybe_unused]] auto next_recheck = std::chrono::steady_clock::now();
  if constexpr (detail::has_recheck<D>) next_recheck += decoder_.recheck_interval();
  const bool beat = options_.heartbeat_interval.count() > 0;
  auto next_heartbeat = std::chrono::steady_clock::now() + options_.heartbeat_interval;
  constexpr bool may_idle_advance = detail::kind_of<Sink>() == sink_kind::state_mirror;
  auto next_sent_check = std::chrono::steady_clock::now();
  auto last_wake = std::chrono::steady_clock::now();
  const auto end_session = [&] {
    s.end_requested.store(true);
    wake();
  };
  // Tells the connection thread what is held and whether it may advance an idle slot; wakes it when
  // there is something to report, at most every few milliseconds within one batch of frames.
  const auto publish = [&](bool batch_done) {
    const bool idle = a.asm_.idle() && !a.holding();
    s.resident.store(a.resident_bytes());
    s.applied.store((applied << 1U) | (idle ? 1U : 0U));
    const auto now = std::chrono::steady_clock::now();
    if ((s.advanced || idle) && (batch_done || now - last_wake >= std::chrono::milliseconds(5))) {
      s.advanced = false;
      last_wake = now;
      wake();
    }
  };
  // The decoder's own check on the ordinary connection (wal2json: the catalog, for a dropped column
  // no change shows; pglogical: the types of a table described again). What it describes anew goes
  // through the assembler, so a schema change is reported (and halts, or is accepted) as one from
  // the stream would be. False when it could not run now (no probe, a failed query).
  [[maybe_unused]] const auto recheck_decoder = [&]() -> bool {
    if constexpr (detail::has_recheck<D>) {
      if (!open_probe()) return false;
      std::error_code refused;
      auto checked =
          decoder_.recheck(detail::decoder_query(*probe_), [&](std::span<const std::byte> m) -> result<void> {
            auto pushed = a.asm_.push(m, a);
            if (!pushed) refused = pushed.error();
            return pushed;
          });
      if (!a.failed && refused) a.failed = detail::to_halt(detail::halt_for_translation(refused), refused);
      if (!a.failed && checked && *checked) {
        if ((*checked)->reason == halt_reason::decoder_table_missing) {
          emit<telemetry::events::connection_slot_invalidated>(telemetry::keys::slot_name = *slot_name_,
                                                               telemetry::keys::reason = (*checked)->reason);
        }
        a.failed = std::move(**checked);
      }
      if (a.failed) {
        end_session();
        return true;
      }
      if (!checked) {
        probe_.reset();  // a failed query is left to the next check
        return false;
      }
    }
    return true;
  };
  // Decodes one frame and delivers whatever it completes.
  const auto apply = [&](const detail::frame_queue::item& item) {
    auto frame = parse_copy_data(item.frame.bytes());
    const auto* w = frame ? std::get_if<xlog_data>(&*frame) : nullptr;
    const auto spilled_before = a.asm_.spill_totals();
    // The decoder turns the payload into pgoutput messages (pgoutput's own: the payload as it is),
    // and every Commit among them must agree with the position of the frame it came in.
    bool damaged_commit = false;
    const auto to_assembler = [&](std::span<const std::byte> message) -> result<void> {
      if (!detail::commit_matches_frame(message, *w)) {
        damaged_commit = true;
        return fail(errc::protocol_violation);
      }
      return a.asm_.push(message, a);
    };
    if constexpr (detail::has_recheck<D>) {
      // The decoder's catalog went stale (pglogical: a table described again): read it anew before
      // anything else is translated with it. If that cannot be done now, the session ends without
      // applying this frame, and the reconnect's prepare() reads the catalog.
      if (decoder_.recheck_due() && (!recheck_decoder() || a.failed)) {
        end_session();
        return;
      }
    }
    result<void> pushed = w ? decoder_.translate(w->data, to_assembler) : result<void>{fail(errc::decode_failure)};
    if (damaged_commit) {
      halt h = detail::to_halt(halt_reason::decode_failure, make_error_code(errc::protocol_violation));
      h.at = w->data_start;
      a.failed = std::move(h);
      return;
    }
    if (const auto spilled = a.asm_.spill_totals(); spilled != spilled_before) {
      REPLICANT_FAULT_POINT("during_spill");
      emit<telemetry::events::stream_spilled>(telemetry::keys::byte_size = spilled.second - spilled_before.second,
                                              telemetry::keys::change_count = spilled.first - spilled_before.first);
    }
    if (!pushed && pushed.error() == halt_reason::spill_exhausted) {
      emit<telemetry::events::stream_spill_exhausted>(telemetry::keys::byte_size = a.asm_.spilled_bytes(),
                                                      telemetry::keys::reason = halt_reason::spill_exhausted);
    }
    if (!pushed && !a.failed) {
      halt h = detail::to_halt(detail::halt_for_translation(pushed.error()), pushed.error());
      if (w) h.at = w->data_start;
      a.failed = std::move(h);
    }
    if (!a.failed && a.asm_.open_streams() > options_.max_concurrent_txns) {
      a.failed = detail::to_halt(halt_reason::transaction_too_large);
    }
    // What is held cannot shrink before it commits, and no more can be read: held for good. Whatever
    // the spill policy: one that spills has already brought what is held under its threshold, so
    // only what it could not move (or a policy that never spills) gets here.
    if (!a.failed && (a.asm_.largest_open_transaction_bytes() > options_.max_inflight_bytes ||
                      a.asm_.resident_bytes() >= options_.max_inflight_bytes)) {
      a.failed = detail::to_halt(halt_reason::transaction_too_large);
    }
    if (!a.failed && !a.asm_.idle()) REPLICANT_FAULT_POINT("mid_transaction");
  };
  // On stop(), hand over what is held and finish the delivery in hand, then let the connection
  // thread acknowledge it and end the copy: it goes on reporting until told, so a delivery in
  // progress is never left unacknowledged. Checked before every frame, so that a stop does not wait
  // for a whole batch of received frames to be applied.
  const auto honour_stop = [&] {
    if (stopping_.load() && !s.end_requested.load()) {
      if (!a.failed) static_cast<void>(a.flush());
      end_session();
    }
  };
  std::deque<detail::frame_queue::item> batch;
  for (;;) {
    honour_stop();
    auto wait = std::chrono::milliseconds(100);
    if (const auto due = a.due()) {
      wait = std::clamp(std::chrono::ceil<std::chrono::milliseconds>(*due - std::chrono::steady_clock::now()),
                        std::chrono::milliseconds(0), wait);
    }
    batch.clear();
    const bool got = s.queue.pop_all(wait, batch);
    bool flushed = false;
    if (a.due() && !a.failed && !s.end_requested.load()) {
      static_cast<void>(a.tick(std::chrono::steady_clock::now()));
      flushed = true;  // what the tick made durable (or idle) is reported at once
      if (a.failed) end_session();
    }
    // The incremental snapshot's reader stopped by itself: a halt, or a new session to resume.
    if (!a.failed && !s.end_requested.load() && backfill_failed(a)) end_session();
    if (check_publications && std::chrono::steady_clock::now() >= next_publication_check && !a.failed &&
        !s.end_requested.load()) {
      if (!publications_still_exist()) {
        emit<telemetry::events::connection_slot_invalidated>(
            telemetry::keys::slot_name = *slot_name_, telemetry::keys::reason = halt_reason::publication_missing);
        a.failed = detail::to_halt(halt_reason::publication_missing);
        end_session();
      }
      // Still there, but publishing less than when the session began? pgoutput would leave the
      // removed tables (or filtered rows, left-out columns) out of the stream without a word. Only
      // on a probe connection that just answered: one that failed is left to the next check, so
      // that a silent network costs one command timeout per check, not two.
      if (!a.failed && s.publications && probe_) {
        auto changed = detail::check_publication_definitions(*probe_, options_.publications, *s.publications);
        if (!changed) {
          probe_.reset();  // a failed check is left to the next one
        } else if (*changed) {
          emit<telemetry::events::connection_slot_invalidated>(
              telemetry::keys::slot_name = *slot_name_, telemetry::keys::reason = halt_reason::publication_changed);
          a.failed = std::move(**changed);
          end_session();
        }
      }
      next_publication_check = std::chrono::steady_clock::now() + options_.publication_check_interval;
    }
    if constexpr (detail::has_recheck<D>) {
      const auto every = decoder_.recheck_interval();
      if (every.count() > 0 && std::chrono::steady_clock::now() >= next_recheck && !a.failed &&
          !s.end_requested.load()) {
        // When it cannot run now, it is tried again at the next interval.
        next_recheck = std::chrono::steady_clock::now() + every;
        static_cast<void>(recheck_decoder());
      }
    }
    if (beat && std::chrono::steady_clock::now() >= next_heartbeat && !a.failed && !s.end_requested.load()) {
      heartbeat();
      next_heartbeat = std::chrono::steady_clock::now() + options_.heartbeat_interval;
    }
    if (may_idle_advance && std::chrono::steady_clock::now() >= next_sent_check && !a.failed &&
        !s.end_requested.load()) {
      if (const auto sent = walsender_sent(s.walsender_pid)) s.server_sent.store(sent->value());
      next_sent_check = std::chrono::steady_clock::now() + options_.status_interval;
    }
    if (!got) {
      if (s.queue.closed()) break;
      if (flushed && !a.failed) publish(true);
      continue;
    }
    for (const auto& item : batch) {
      honour_stop();
      const auto size = item.frame.size();
      // Draining (after a stop or a failure) nothing more is delivered, and nothing that was not
      // applied may ever count as applied: the idle advance trusts `applied`.
      const bool draining = a.failed || s.end_requested.load();
      if (!draining) {
        apply(item);
        if (a.failed) {
          end_session();
        } else if (!s.end_requested.load()) {  // else apply() left the frame to the next session
          applied = item.seq;
          publish(false);
        }
      }
      s.queue.release(size);
    }
    if (!a.failed && !s.end_requested.load()) publish(true);
  }
  connection.join();
  end_backfill();
  // The connection ended by itself (a restart, a lost connection): what is held is complete and
  // committed, so it is handed over now rather than received again.
  if (!a.failed && a.holding()) static_cast<void>(a.flush());

  if (a.failed) {
    halt_with(std::move(*a.failed));
    return session_end::halted;
  }
  if (s.too_slow_lag) {
    emit<telemetry::events::connection_disconnected>(telemetry::keys::lag_bytes = *s.too_slow_lag,
                                                     telemetry::keys::reason = halt_reason::sink_too_slow);
    halt h = detail::to_halt(halt_reason::sink_too_slow);
    h.lag_bytes = *s.too_slow_lag;
    halt_with(std::move(h));
    return session_end::halted;
  }
  emit<telemetry::events::connection_disconnected>();
  if (stopping_.load()) return session_end::stopped;
  // Whatever ended the stream (a restart, a lost connection, a slot invalidated while streaming),
  // the next connect starts from the durable position and its checks decide whether to go on.
  return session_end::reconnect;
}

// The connection thread: reads the socket into the queue (within the budget), answers keepalives,
// reports the durable position. Never decodes beyond the framing and never runs the sink.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::connection_loop(session& s, pq::replication_stream& stream) -> void {
  using clock = std::chrono::steady_clock;
  lsn received{durable_.load()};
  lsn reported{};
  lsn keepalive_end{};
  lsn previous_keepalive_end{};
  std::uint64_t keepalive_seq = 0;
  std::uint64_t seq = 0;
  bool reply_now = true;  // report our position at once
  bool maybe_buffered = false;
  auto next_status = clock::now();
  constexpr bool may_idle_advance = detail::kind_of<Sink>() == sink_kind::state_mirror;
  const bool low_water = options_.receive_low_water_bytes > 0;
  std::vector<detail::frame_queue::item> received_frames;
  // Liveness: a server that sends nothing at all (not even a keepalive) for receive_timeout is
  // gone, or the network in between is; halfway there it is asked for a reply.
  const bool watch_liveness = options_.receive_timeout.count() > 0;
  auto last_heard = clock::now();
  bool pinged = false;

  const auto report = [&](bool force) -> result<void> {
    lsn flush{durable_.load()};
    if (may_idle_advance && keepalive_end > flush) {
      const auto applied = s.applied.load();
      if ((applied & 1U) != 0 && (applied >> 1U) >= keepalive_seq) {
        flush = std::max(flush, std::min(keepalive_end, lsn{s.server_sent.load()}));
      }
    }
    flush = std::max(flush, reported);  // never report a lower position than before
    if (flush > reported && reported.is_valid() && flush != lsn{durable_.load()}) {
      emit<telemetry::events::checkpoint_advanced>(telemetry::keys::commit_lsn = flush,
                                                   telemetry::keys::kind = telemetry::kind::idle);
    }
    const bool ping = watch_liveness && !pinged && clock::now() - last_heard > options_.receive_timeout / 2;
    if (!force && !ping && flush == reported && clock::now() < next_status) return {};
    const standby_status_update u{
        std::max(received, flush), flush, flush,
        std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now()), ping};
    auto sent = stream.send(encode_status_update(u));
    if (!sent) return sent;
    pinged = pinged || ping;
    reported = flush;
    next_status = clock::now() + options_.status_interval;
    return {};
  };

  for (;;) {
    // Only the applier ends a session (after its last delivery, so that it gets acknowledged);
    // a stop request merely stops the reading.
    if (s.end_requested.load()) break;
    if (auto r = report(reply_now); !r) {
      s.error = r.error();
      break;
    }
    reply_now = false;
    if (watch_liveness && clock::now() - last_heard > options_.receive_timeout) {
      s.error = make_error_code(errc::connection_failed);  // reconnect
      break;
    }

    const std::size_t held = s.queue.bytes() + s.resident.load();
    if (stopping_.load()) {
      interrupt_overdue_store_write();
      if (detail::poll_readable(wake_fd_, std::chrono::milliseconds(100))) detail::drain_eventfd(wake_fd_);
      continue;
    }
    if (held >= options_.max_inflight_bytes) {
      if (options_.overload == overload_policy::halt) {
        s.too_slow_lag = distance(lsn{durable_.load()}, received);
        break;
      }
      // Pacing: leave the socket unread so TCP holds the walsender back; keep reporting. Silence
      // is ours now, not the server's.
      last_heard = clock::now();
      pinged = false;
      const auto until_status = std::chrono::duration_cast<std::chrono::milliseconds>(next_status - clock::now());
      if (detail::poll_readable(
              wake_fd_, std::clamp(until_status, std::chrono::milliseconds(0), std::chrono::milliseconds(100)))) {
        detail::drain_eventfd(wake_fd_);
      }
      continue;
    }

    if (!maybe_buffered) {
      auto timeout = std::max(std::chrono::duration_cast<std::chrono::milliseconds>(next_status - clock::now()),
                              std::chrono::milliseconds(0));
      // With a low-water mark the socket is reported readable only once that much has arrived:
      // look anyway after the delay, so a small message (or a keepalive) waits no longer.
      if (low_water) timeout = std::min(timeout, options_.receive_max_delay);
      if (watch_liveness) timeout = std::min(timeout, options_.receive_timeout / 4);
      auto w = stream.wait(wake_fd_, timeout);
      if (!w) {
        s.error = w.error();
        break;
      }
      if (*w == pq::wait_outcome::woken) {
        detail::drain_eventfd(wake_fd_);
        continue;
      }
      if (*w == pq::wait_outcome::timed_out && !low_water) continue;
    }

    const std::size_t room = options_.max_inflight_bytes - held;
    bool bad_frame = false;
    received_frames.clear();
    auto got = stream.receive(
        [&](pq::frame&& f) {
          last_heard = clock::now();
          pinged = false;
          const auto bytes = f.bytes();
          if (bytes.empty()) {
            bad_frame = true;
            return;
          }
          if (static_cast<char>(bytes[0]) == 'k') {
            auto k = parse_copy_data(bytes);
            const auto* ka = k ? std::get_if<primary_keepalive>(&*k) : nullptr;
            if (!ka) {
              bad_frame = true;
              return;
            }
            received = std::max(received, ka->wal_end);
            // The idle advance trusts the lower of the last two positions, so that one damaged
            // keepalive cannot move the slot past WAL that was never sent.
            keepalive_end = std::min(ka->wal_end, previous_keepalive_end);
            previous_keepalive_end = ka->wal_end;
            keepalive_seq = seq;
            reply_now = reply_now || ka->reply_requested;
            return;
          }
          if (static_cast<char>(bytes[0]) != 'w' || bytes.size() < 25) {
            bad_frame = true;
            return;
          }
          auto x = parse_copy_data(bytes);
          if (const auto* w = x ? std::get_if<xlog_data>(&*x) : nullptr) received = std::max(received, w->wal_end);
          s.first_frame.store(true);
          received_frames.push_back({++seq, std::move(f)});
        },
        room);
    s.queue.push(received_frames);  // one wakeup for everything this read brought
    if (!got) {
      s.error = got.error();
      s.sqlstate = stream.connection().last_error().sqlstate;
      break;
    }
    if (bad_frame) {
      s.error = make_error_code(errc::protocol_violation);
      break;
    }
    maybe_buffered = *got >= room;
  }

  if (!s.error && !s.too_slow_lag) {
    // A clean end (stop or halt): acknowledge what is durable, then end the copy so the walsender
    // exits at once.
    static_cast<void>(report(true));
    static_cast<void>(stream.finish());
  }
  s.queue.close();
}

}  // namespace replicant

// The incremental snapshot's hooks need the applier and the helpers above.
#include <replicant/impl/pipeline_backfill.hpp>

#endif  // REPLICANT_IMPL_PIPELINE_HPP
