// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_JETSTREAM_JETSTREAM_SINK_HPP
#define REPLICANT_EXAMPLES_JETSTREAM_JETSTREAM_SINK_HPP

/// @file
/// The sink of replicant-jetstream: publishes every change to a NATS JetStream stream, ends every
/// transaction with a commit marker, and keeps its checkpoint in the stream itself
/// (docs/scale_out.md). A model of `replicant::deferred_sink`: it publishes asynchronously through
/// nats.c and confirms each transaction when JetStream acknowledges its marker.

#include "../tail/json.hpp"
#include "jetstream_error.hpp"
#include "security.hpp"
#include "subjects.hpp"

#include <replicant/checkpoint/deferred.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/transaction.hpp>
#include <replicant/sink/vocabulary.hpp>

#include <nats/nats.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace replicant::examples::jetstream {

/**
 * Where and how the sink publishes.
 *
 * @par Thread safety
 * A value type.
 */
struct sink_settings {
  /// The NATS servers, comma-separated URLs (`nats://user:password@host:4222,...`). Never printed.
  std::string servers;
  /// The credentials and TLS settings besides the URLs' (set_connection()).
  nats_security security;
  /// The stream, which must exist (see create_stream()).
  std::string stream;
  /// The subject prefix (valid_prefix()): changes go to `<prefix>.<schema>.<table>`, markers to
  /// `<prefix>.commit`.
  std::string prefix;
  /// How long one publish may wait for JetStream's acknowledgement before it counts as failed;
  /// also the wait of the JetStream API requests and of a publish stalled on `max_pending`.
  std::chrono::milliseconds ack_wait{5000};
  /// The most messages published and not yet acknowledged by JetStream at once (nats.c's
  /// `PublishAsync.MaxPending`); a publish beyond it waits for room.
  std::int64_t max_pending = 4096;
};

/**
 * What the sink did, for the program's last line and the tests.
 *
 * @par Thread safety
 * A value type.
 */
struct sink_counts {
  /// Transactions whose every message was handed to nats.c.
  std::uint64_t transactions = 0;
  /// Change messages handed to nats.c.
  std::uint64_t changes = 0;
  /// Transactions JetStream acknowledged (their markers).
  std::uint64_t confirmed = 0;
  /// Transactions at or before the checkpoint, confirmed without publishing (a server may send
  /// them again after a crash).
  std::uint64_t already_in_stream = 0;
  /// Change messages not published again because the stream held them already (the tail of a
  /// transaction an earlier run had begun).
  std::uint64_t tail_skipped = 0;
};

/**
 * A @ref replicant::deferred_sink that publishes to NATS JetStream, exactly once in the stream.
 *
 * **What it publishes.** Each change of a transaction is one message on
 * `<prefix>.<schema>.<table>`, its body the JSON object replicant-tail prints for the change
 * (examples/tail/json.hpp, without the line's newline); then one commit marker on
 * `<prefix>.commit`: `{"lsn":...,"xid":...,"commit_time":...,"op":"commit","changes":n}`. The
 * messages of a transaction carry the ids `<commit LSN>:0` to `<commit LSN>:n` (message_id()), the
 * marker last.
 *
 * **One unbroken chain.** Every message also says which stream sequence it must follow
 * (`Nats-Expected-Last-Sequence`), and which stream must store it (`Nats-Expected-Stream`). So
 * JetStream stores a message only right after its predecessor: when a publish is lost on the way
 * (a leader change, a broken connection), nothing after it is stored either, and the stream never
 * holds a transaction with a hole, or a marker ahead of a change of its transaction. Once a marker
 * is stored, every message before it is.
 *
 * **The checkpoint.** checkpoint() reads the stream back: the commit LSN of the last marker is the
 * checkpoint, and when the stream's last message is a change after it (an earlier run stopped in
 * the middle of a transaction), the messages up to that one are not published again when the
 * transaction comes back. The stream ends where the chain ends, so nothing is duplicated in it,
 * whatever was killed when; the broker's duplicate window is a second guard for a message
 * published twice within it.
 *
 * **Confirmation.** handle_transaction() hands every message to nats.c's asynchronous publish and
 * returns; JetStream's acknowledgement of the marker confirms the transaction (nothing before it
 * can be missing). An error, or no acknowledgement within `ack_wait`, fails it, and every later
 * transaction of the connection with it: nothing after a gap is acknowledged.
 *
 * @par Thread safety
 * checkpoint() and handle_transaction() on the pipeline's thread, one at a time; the
 * acknowledgements arrive on a thread of nats.c; counts() and last_fault() from any thread.
 */
class jetstream_sink {
 public:
  /// A broker stream is a log: the slot is never advanced past what the stream holds.
  static constexpr sink_kind kind = sink_kind::append_log;

  /// A sink for @p settings; connect() connects it. Never throws except std::bad_alloc.
  explicit jetstream_sink(sink_settings settings)
      : settings_(std::move(settings)), marker_subject_(marker_subject(settings_.prefix)) {}
  jetstream_sink(const jetstream_sink&) = delete;
  auto operator=(const jetstream_sink&) -> jetstream_sink& = delete;
  /// Waits (up to `ack_wait`) for the acknowledgements still out, then closes the connection.
  ~jetstream_sink() { close(); }

  /**
   * Connects to the servers and sets up the JetStream context. The client reconnects by itself
   * after that, for as long as the sink lives.
   * @return nothing, or the fault: connect_failed (which may pass), or credentials_refused,
   * tls_failed or security_files_unusable (which no retry mends).
   */
  [[nodiscard]] auto connect() -> result<void> {
    natsOptions* opts = nullptr;
    if (natsOptions_Create(&opts) != NATS_OK) return fail(jetstream_errc::broker_error);
    if (const auto bad = set_connection(opts, settings_.servers, settings_.security)) {
      natsOptions_Destroy(opts);
      return fail(*bad);
    }
    natsStatus s = natsOptions_SetName(opts, "replicant-jetstream");
    if (s == NATS_OK) s = natsOptions_SetMaxReconnect(opts, -1);
    if (s == NATS_OK) s = natsOptions_SetReconnectWait(opts, 100);
    if (s == NATS_OK) s = natsOptions_SetTimeout(opts, 2000);
    if (s == NATS_OK) s = natsOptions_SetErrorHandler(opts, &jetstream_sink::on_connection_error, this);
    if (s == NATS_OK) s = natsConnection_Connect(&nc_, opts);
    natsOptions_Destroy(opts);
    if (s != NATS_OK) {
      // Refused credentials and failed TLS are final; anything else (no server answering) may pass.
      // Under TLS 1.3 a server checks the client's certificate only after the client has finished
      // its handshake: a refused or missing certificate shows as the connection closing before the
      // first PONG, which nats.c reports as a protocol error.
      const jetstream_errc e = settings_.security.tls && s == NATS_PROTOCOL_ERROR ? jetstream_errc::tls_failed
                                                                                  : classify(s, no_code, {}, false);
      const bool final = e == jetstream_errc::credentials_refused || e == jetstream_errc::tls_failed;
      return fail(final ? e : jetstream_errc::connect_failed);
    }
    jsOptions jo;
    jsOptions_Init(&jo);
    jo.Wait = settings_.ack_wait.count();
    jo.PublishAsync.MaxPending = settings_.max_pending;
    jo.PublishAsync.StallWait = settings_.ack_wait.count();
    jo.PublishAsync.AckHandler = &jetstream_sink::on_ack;
    jo.PublishAsync.AckHandlerClosure = this;
    if (natsConnection_JetStream(&js_, nc_, &jo) != NATS_OK) return fail(jetstream_errc::broker_error);
    return {};
  }

  /**
   * The commit LSN of the stream's last commit marker, or none. Starts a new connection of the
   * pipeline: waits until the previous one's publishes are acknowledged or timed out, checks the
   * stream, and reads where it ends.
   * @return the checkpoint, or the fault (stream_missing, stream_unsuitable, unavailable, ...).
   */
  [[nodiscard]] auto checkpoint() -> result<std::optional<lsn>> {
    forget_pending();
    // The earlier connection's publishes either land or time out before the end is read, so
    // that the end does not move under the new connection (if one still lands later, the chain
    // refuses the new connection's first publish, and the next connection reads the end again).
    jsPubOptions settle;
    jsPubOptions_Init(&settle);
    settle.MaxWait = 2 * settings_.ack_wait.count() + 1000;
    if (const natsStatus s = js_PublishAsyncComplete(js_, &settle); s != NATS_OK) return fail(s, no_code, {});
    forget_pending();
    if (auto checked = check_stream(); !checked) return unexpected(checked.error());

    std::optional<lsn> last_commit;
    if (auto marker = read_message(nullptr, marker_subject_.c_str()); !marker) {
      return unexpected(marker.error());
    } else if (*marker) {
      if ((*marker)->subject != marker_subject_) return fail(jetstream_errc::checkpoint_unreadable);
      last_commit = (*marker)->id.commit;
    }
    std::optional<parsed_message_id> unfinished;
    if (last_sequence_ > 0) {
      auto last = read_message(&last_sequence_, nullptr);
      if (!last) return unexpected(last.error());
      // A change after the last marker: the transaction an earlier run began and did not end.
      if (*last && (*last)->subject != marker_subject_ && (!last_commit || (*last)->id.commit > *last_commit)) {
        unfinished = (*last)->id;
      }
    }
    const std::scoped_lock lock{mutex_};
    next_sequence_ = last_sequence_;
    checkpoint_ = last_commit;
    tail_ = unfinished;
    return last_commit;
  }

  /**
   * Publishes every change of @p t, then its commit marker, asynchronously, and keeps @p done
   * for the marker's acknowledgement. Returns once nats.c has every message (a publish waits
   * while `max_pending` messages are unacknowledged).
   * @return nothing, or the fault of a publish nats.c refused, or a change that could not be
   * rendered (`decode_failure`), or the transaction's read error.
   */
  [[nodiscard]] auto handle_transaction(const transaction& t, confirmation done) -> result<void> {
    std::optional<std::uint64_t> skip_through;
    {
      std::unique_lock lock{mutex_};
      if (failure_) {
        const auto why = *failure_;
        lock.unlock();
        done.fail(why);  // a gap before it: nothing from here on may be stored
        return {};
      }
      if (checkpoint_ && t.commit_lsn() <= *checkpoint_) {
        ++counts_.already_in_stream;
        lock.unlock();
        done.confirm();
        return {};
      }
      if (tail_ && tail_->commit == t.commit_lsn()) skip_through = tail_->index;
      tail_.reset();
      awaiting_.insert_or_assign(t.commit_lsn(), std::move(done));
    }
    const std::string prefix = tail::transaction_prefix(t);
    std::uint64_t index = 0;
    std::uint64_t skipped = 0;
    std::string body;
    for (const change& c : t.changes()) {
      if (skip_through && index <= *skip_through) {
        ++index;
        ++skipped;
        continue;
      }
      body.clear();
      if (auto r = tail::append_json_change(body, prefix, c); !r) return r;
      body.pop_back();  // the line's newline: a message is one JSON object
      const auto subject = change_subject(settings_.prefix, c.relation().schema, c.relation().table);
      if (auto p = publish(subject, body, message_id(t.commit_lsn(), index)); !p) return p;
      ++index;
    }
    if (auto ec = t.read_error()) return unexpected(ec);  // a spilled part was unreadable: no marker
    body = prefix;
    body += "\"op\":\"commit\",\"changes\":";
    body += std::to_string(index);
    body += '}';
    if (auto p = publish(marker_subject_, body, message_id(t.commit_lsn(), index)); !p) return p;
    const std::scoped_lock lock{mutex_};
    ++counts_.transactions;
    counts_.changes += index - skipped;
    counts_.tail_skipped += skipped;
    return {};
  }

  /// What the sink did so far. Never throws.
  [[nodiscard]] auto counts() const -> sink_counts {
    const std::scoped_lock lock{mutex_};
    return counts_;
  }

  /// The first fault of the current connection (a failed acknowledgement), or an empty code.
  [[nodiscard]] auto last_fault() const -> std::error_code {
    const std::scoped_lock lock{mutex_};
    return failure_.value_or(std::error_code{});
  }

 private:
  // One message read back from the stream: its subject and id.
  struct stored_message {
    std::string subject;
    parsed_message_id id;
  };

  static constexpr auto no_code = static_cast<jsErrCode>(0);

  [[nodiscard]] static auto fail(jetstream_errc e) -> unexpected<std::error_code> {
    return unexpected<std::error_code>(make_error_code(e));
  }
  [[nodiscard]] auto fail(natsStatus s, jsErrCode code, std::string_view text) const -> unexpected<std::error_code> {
    return fail(classify(s, code, text, denied_.load()));
  }

  // A new connection of the pipeline: the confirmations of the earlier one count no more.
  auto forget_pending() -> void {
    const std::scoped_lock lock{mutex_};
    awaiting_.clear();
    failure_.reset();
    tail_.reset();
  }

  // The stream exists, can keep a checkpoint, and ends at last_sequence_.
  [[nodiscard]] auto check_stream() -> result<void> {
    jsOptions jo;
    jsOptions_Init(&jo);
    jo.Wait = settings_.ack_wait.count();
    jsStreamInfo* info = nullptr;
    jsErrCode code = static_cast<jsErrCode>(0);
    const natsStatus s = js_GetStreamInfo(&info, js_, settings_.stream.c_str(), &jo, &code);
    if (s != NATS_OK) return fail(s, code, {});
    const jsStreamConfig& cfg = *info->Config;
    bool covered = false;
    for (int i = 0; i < cfg.SubjectsLen; ++i) covered = covered || covers(cfg.Subjects[i], settings_.prefix);
    const bool suitable = covered && cfg.Retention == js_LimitsPolicy && cfg.Discard == js_DiscardNew;
    last_sequence_ = info->State.LastSeq;
    jsStreamInfo_Destroy(info);
    if (!suitable) return fail(jetstream_errc::stream_unsuitable);
    return {};
  }

  // Whether stream subject @p filter takes every subject under @p prefix (`<prefix>.>`, or a
  // wider filter such as `cdc.>` or `>`).
  [[nodiscard]] static auto covers(std::string_view filter, std::string_view prefix) -> bool {
    for (;;) {
      const auto f_end = filter.find('.');
      const auto token = filter.substr(0, f_end);
      if (token == ">") return true;
      if (prefix.empty()) return false;  // the filter goes deeper than the prefix
      const auto p_end = prefix.find('.');
      const auto mine = prefix.substr(0, p_end);
      if (token != "*" && token != mine) return false;
      if (f_end == std::string_view::npos) return false;  // ends before the prefix's subjects
      filter.remove_prefix(f_end + 1);
      prefix = p_end == std::string_view::npos ? std::string_view{} : prefix.substr(p_end + 1);
    }
  }

  // The message at sequence @p seq, or the last one on @p subject: its subject and id, nothing
  // when there is none (or it was deleted), or the fault.
  [[nodiscard]] auto read_message(const std::uint64_t* seq, const char* subject)
      -> result<std::optional<stored_message>> {
    jsOptions jo;
    jsOptions_Init(&jo);
    jo.Wait = settings_.ack_wait.count();
    natsMsg* m = nullptr;
    jsErrCode code = static_cast<jsErrCode>(0);
    const natsStatus s = seq != nullptr ? js_GetMsg(&m, js_, settings_.stream.c_str(), *seq, &jo, &code)
                                        : js_GetLastMsg(&m, js_, settings_.stream.c_str(), subject, &jo, &code);
    if (s == NATS_NOT_FOUND || code == JSNoMessageFoundErr) {
      natsMsg_Destroy(m);
      return std::optional<stored_message>{};
    }
    if (s != NATS_OK) return fail(s, code, {});
    const char* id = nullptr;
    const bool has_id = natsMsgHeader_Get(m, "Nats-Msg-Id", &id) == NATS_OK && id != nullptr;
    auto parsed = has_id ? parse_message_id(id) : std::nullopt;
    std::string where = natsMsg_GetSubject(m);
    natsMsg_Destroy(m);
    if (!parsed) return fail(jetstream_errc::checkpoint_unreadable);
    return std::optional{stored_message{std::move(where), *parsed}};
  }

  // Hands one message to nats.c: its id, the stream that must store it, and the sequence it must
  // follow.
  [[nodiscard]] auto publish(const std::string& subject, std::string_view body, const std::string& id) -> result<void> {
    natsMsg* m = nullptr;
    natsStatus s = natsMsg_Create(&m, subject.c_str(), nullptr, body.data(), static_cast<int>(body.size()));
    const std::string after = std::to_string(next_sequence_);
    if (s == NATS_OK) s = natsMsgHeader_Set(m, "Nats-Msg-Id", id.c_str());
    if (s == NATS_OK) s = natsMsgHeader_Set(m, "Nats-Expected-Stream", settings_.stream.c_str());
    if (s == NATS_OK) s = natsMsgHeader_Set(m, "Nats-Expected-Last-Sequence", after.c_str());
    jsPubOptions po;
    jsPubOptions_Init(&po);
    po.MaxWait = settings_.ack_wait.count();
    if (s == NATS_OK) s = js_PublishMsgAsync(js_, &m, &po);  // takes the message when it succeeds
    if (s != NATS_OK) {
      natsMsg_Destroy(m);
      return fail(s, no_code, {});
    }
    ++next_sequence_;
    return {};
  }

  // nats.c's acknowledgement callback (its own thread): one per published message.
  static auto on_ack(jsCtx*, natsMsg* msg, jsPubAck* pa, jsPubAckErr* pae, void* closure) -> void {
    static_cast<jetstream_sink*>(closure)->acknowledged(msg, pa, pae);
    natsMsg_Destroy(msg);
  }

  // The connection's asynchronous errors: a permission violation is reported here, apart from the
  // publish it refused (which then gets no acknowledgement).
  static auto on_connection_error(natsConnection*, natsSubscription*, natsStatus err, void* closure) -> void {
    if (err == NATS_NOT_PERMITTED) static_cast<jetstream_sink*>(closure)->denied_.store(true);
  }

  auto acknowledged(natsMsg* msg, const jsPubAck* pa, const jsPubAckErr* pae) -> void {
    const char* id = nullptr;
    const auto parsed =
        natsMsgHeader_Get(msg, "Nats-Msg-Id", &id) == NATS_OK && id != nullptr ? parse_message_id(id) : std::nullopt;
    const bool marker = marker_subject_ == natsMsg_GetSubject(msg);
    std::optional<std::error_code> failure;
    if (pae != nullptr) {
      failure = make_error_code(
          classify(pae->Err, pae->ErrCode, pae->ErrText != nullptr ? pae->ErrText : "", denied_.load()));
    } else if (pa != nullptr && pa->Duplicate && pa->Sequence != expected_sequence(msg)) {
      // The id is in the stream already, but not where this message belongs: the stream holds
      // what this pipeline did not publish there.
      failure = make_error_code(jetstream_errc::sequence_mismatch);
    }
    std::optional<confirmation> done;
    {
      const std::scoped_lock lock{mutex_};
      if (failure && !failure_) failure_ = failure;
      if (parsed && (failure || marker)) {
        if (const auto it = awaiting_.find(parsed->commit); it != awaiting_.end()) {
          done = std::move(it->second);
          awaiting_.erase(it);
          if (!failure) ++counts_.confirmed;
        }
      }
    }
    if (!done) return;
    if (failure) {
      done->fail(*failure);
    } else {
      done->confirm();
    }
  }

  // The sequence @p msg was to be stored at: one after the one it had to follow.
  [[nodiscard]] static auto expected_sequence(natsMsg* msg) -> std::uint64_t {
    const char* after = nullptr;
    if (natsMsgHeader_Get(msg, "Nats-Expected-Last-Sequence", &after) != NATS_OK || after == nullptr) return 0;
    std::uint64_t v = 0;
    const std::string_view text{after};
    std::from_chars(text.data(), text.data() + text.size(), v);
    return v + 1;
  }

  auto close() noexcept -> void {
    if (js_ != nullptr) {
      jsPubOptions settle;
      jsPubOptions_Init(&settle);
      settle.MaxWait = settings_.ack_wait.count();
      static_cast<void>(js_PublishAsyncComplete(js_, &settle));
    }
    if (nc_ != nullptr) natsConnection_Close(nc_);
    jsCtx_Destroy(js_);
    natsConnection_Destroy(nc_);
    js_ = nullptr;
    nc_ = nullptr;
    const std::scoped_lock lock{mutex_};  // an acknowledgement still running finishes first
    awaiting_.clear();
  }

  const sink_settings settings_;
  const std::string marker_subject_;
  natsConnection* nc_ = nullptr;
  jsCtx* js_ = nullptr;
  std::atomic<bool> denied_{false};         // the connection saw a permission violation
  std::uint64_t last_sequence_ = 0;         // pipeline thread: the stream's end, read by checkpoint()
  std::uint64_t next_sequence_ = 0;         // pipeline thread: the sequence the next publish must follow
  mutable std::mutex mutex_;                // guards what follows
  std::optional<lsn> checkpoint_;           // the last marker's commit LSN at the connection's start
  std::optional<parsed_message_id> tail_;   // the stream's last message, when a transaction is unfinished
  std::map<lsn, confirmation> awaiting_;    // transactions whose marker is not acknowledged yet
  std::optional<std::error_code> failure_;  // the connection's first failed acknowledgement
  sink_counts counts_;
};

static_assert(replicant::deferred_sink<jetstream_sink>);

}  // namespace replicant::examples::jetstream

#endif  // REPLICANT_EXAMPLES_JETSTREAM_JETSTREAM_SINK_HPP
