// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_KAFKA_KAFKA_SINK_HPP
#define REPLICANT_EXAMPLES_KAFKA_KAFKA_SINK_HPP

/// @file
/// The sink of replicant-kafka: writes each source transaction as one Kafka transaction, holding
/// its change records and a checkpoint record, through librdkafka's transactional producer, and
/// reads its checkpoint back from the checkpoint topic (docs/scale_out.md). A model of
/// `replicant::sink` (sink-owned checkpoint, one transaction at a time).

#include "../tail/json.hpp"
#include "kafka_error.hpp"
#include "properties.hpp"

#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/transaction.hpp>
#include <replicant/sink/concepts.hpp>
#include <replicant/sink/vocabulary.hpp>

#include <librdkafka/rdkafka.h>
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace replicant::examples::kafka {

/// The header naming a record's transaction: its commit LSN, `0/16B3748`.
inline constexpr std::string_view lsn_header = "replicant.lsn";
/// The header of a change record: its index in the transaction, from 0.
inline constexpr std::string_view index_header = "replicant.index";

/**
 * Where and how the sink writes.
 *
 * @par Thread safety
 * A value type.
 */
struct sink_settings {
  /// `bootstrap.servers`: comma-separated host:port. Never printed.
  std::string brokers;
  /// The topic of the change records.
  std::string topic;
  /// The checkpoint topic (compacted): partition 0 holds this slot's checkpoint records.
  std::string checkpoint_topic;
  /// The key of the checkpoint records (the slot's name).
  std::string checkpoint_key;
  /// `transactional.id`: one per slot, the same across restarts, so that a restarted sink fences
  /// the one before it on a real broker.
  std::string transactional_id;
  /// How long one transactional call (init, commit, abort), one record's delivery and the reading
  /// of the checkpoint may take.
  std::chrono::milliseconds request_timeout{10000};
  /// `transaction.timeout.ms`: how long the broker keeps a transaction open before aborting it.
  std::chrono::milliseconds transaction_timeout{60000};
  /// The user's librdkafka properties (security, SASL, SSL, tuning), set on the producer and on
  /// the checkpoint reader before the sink's own (check_properties() refuses the names the sink
  /// sets). Their values are never printed.
  std::vector<property> properties;
};

/**
 * What the sink did, for the program's last line and the tests.
 *
 * @par Thread safety
 * A value type.
 */
struct sink_counts {
  /// Kafka transactions committed (one per source transaction written).
  std::uint64_t committed = 0;
  /// Change records in them.
  std::uint64_t changes = 0;
  /// Source transactions at or before the checkpoint, skipped (a server sends them again after a
  /// crash).
  std::uint64_t already_in_topic = 0;
  /// Kafka transactions that failed (aborted, timed out, fenced).
  std::uint64_t failed = 0;
};

/**
 * A @ref replicant::sink that writes to Kafka, each source transaction as one Kafka transaction.
 *
 * **What it writes.** Each change is one record on the change topic: key `<schema>.<table>` (so a
 * table's records share a partition, in commit order), value the JSON object replicant-tail prints
 * for the change (examples/tail/json.hpp, without the newline), headers `replicant.lsn` (the
 * commit LSN) and `replicant.index` (its place in the transaction). Then one checkpoint record on
 * partition 0 of the checkpoint topic: key the slot's name, value
 * `{"lsn":...,"xid":...,"commit_time":...,"op":"commit","changes":n}`, header `replicant.lsn`.
 * All of them in one Kafka transaction, committed before handle_transaction() returns the commit
 * LSN: a `read_committed` reader sees the transaction's records and its checkpoint record all, or
 * none of them.
 *
 * **The checkpoint.** checkpoint() starts a new producer for every connection of the pipeline:
 * `init_transactions` with the slot's `transactional.id`, which on a broker fences the producer
 * of an earlier run (a zombie) and ends its open transaction. Only then does it read the
 * checkpoint topic with `isolation.level=read_committed` to its end: the highest commit LSN under
 * the slot's key is the checkpoint, and transactions at or before it are skipped.
 *
 * The checkpoint record is produced once the change records are stored (a flush), so even a reader
 * that cannot filter aborted transactions never finds a checkpoint record ahead of its records.
 *
 * **Faults.** A failed call aborts the transaction where librdkafka allows it and returns a
 * @ref kafka_errc; nothing of a failed transaction is acknowledged, and the next connection starts
 * a new producer. No librdkafka text is kept; @ref last_broker_error() gives the error's code.
 *
 * @par Thread safety
 * checkpoint() and handle_transaction() on the pipeline's thread, one at a time; counts() and
 * last_broker_error() from any thread.
 */
class kafka_sink {
 public:
  /// A topic is a log: the slot is never advanced past what the topic holds.
  static constexpr sink_kind kind = sink_kind::append_log;

  /// A sink for @p settings; checkpoint() connects it. Never throws except std::bad_alloc.
  explicit kafka_sink(sink_settings settings) : settings_(std::move(settings)) {}
  kafka_sink(const kafka_sink&) = delete;
  auto operator=(const kafka_sink&) -> kafka_sink& = delete;
  ~kafka_sink() { drop_producer(); }

  /**
   * Starts a new transactional producer (fencing any earlier one with the same
   * `transactional.id`), then reads the checkpoint topic with `read_committed`.
   * @return the commit LSN of the last checkpoint record of the slot, or none; or the fault.
   */
  [[nodiscard]] auto checkpoint() -> result<std::optional<lsn>> {
    drop_producer();
    checkpoint_.reset();
    char errstr[512];
    rd_kafka_conf_t* conf = base_config();
    if (conf == nullptr) return fail(kafka_errc::client_failed, RD_KAFKA_RESP_ERR__INVALID_ARG);
    bool ok = set(conf, "transactional.id", settings_.transactional_id, errstr) &&
              set(conf, "enable.idempotence", "true", errstr) &&
              set(conf, "transaction.timeout.ms", std::to_string(settings_.transaction_timeout.count()), errstr) &&
              set(conf, "message.timeout.ms", std::to_string(settings_.request_timeout.count()), errstr) &&
              set(conf, "partitioner", "murmur2_random", errstr);  // the Java client's partitioner
    rd_kafka_conf_set_opaque(conf, this);
    rd_kafka_conf_set_dr_msg_cb(conf, &kafka_sink::on_delivery);
    if (ok) {
      producer_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);  // takes conf
    } else {
      rd_kafka_conf_destroy(conf);
    }
    if (producer_ == nullptr) return fail(kafka_errc::client_failed, RD_KAFKA_RESP_ERR__INVALID_ARG);
    if (auto r = call(rd_kafka_init_transactions(producer_, timeout_ms())); !r) {
      drop_producer();
      return unexpected(r.error());
    }
    auto read = read_checkpoint();
    if (!read) {
      drop_producer();
      return read;
    }
    checkpoint_ = *read;
    return *read;
  }

  /**
   * Writes @p t as one Kafka transaction: its change records, then its checkpoint record, then
   * the commit. @return the commit LSN once the commit succeeded, or the fault (the transaction
   * aborted where possible).
   */
  [[nodiscard]] auto handle_transaction(const transaction& t) -> result<lsn> {
    if (checkpoint_ && t.commit_lsn() <= *checkpoint_) {
      bump(&sink_counts::already_in_topic);
      return t.commit_lsn();
    }
    if (producer_ == nullptr) return fail(kafka_errc::unavailable, RD_KAFKA_RESP_ERR__STATE);
    if (auto r = call(rd_kafka_begin_transaction(producer_)); !r) return failed(r.error());
    first_delivery_error_.store(RD_KAFKA_RESP_ERR_NO_ERROR);
    const std::string commit = to_string(t.commit_lsn());
    const std::string prefix = tail::transaction_prefix(t);
    std::uint64_t index = 0;
    std::string body;
    std::string key;
    for (const change& c : t.changes()) {
      body.clear();
      if (auto r = tail::append_json_change(body, prefix, c); !r) return abort_with(r.error());
      body.pop_back();  // the line's newline: a record is one JSON object
      key = c.relation().schema;
      key += '.';
      key += c.relation().table;
      if (auto r = produce(settings_.topic, RD_KAFKA_PARTITION_UA, key, body, commit, std::to_string(index)); !r) {
        return abort_with(r.error());
      }
      ++index;
    }
    if (auto ec = t.read_error()) return abort_with(ec);  // a spilled part was unreadable
    // The checkpoint record goes out only once every change record is stored: a reader that
    // cannot filter aborted transactions (read_uncommitted, librdkafka's mock cluster) never sees
    // a checkpoint record ahead of a record of its transaction.
    if (const auto flushed = rd_kafka_flush(producer_, timeout_ms()); flushed != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return abort_with(note(kafka_errc::unavailable, flushed));
    }
    if (const auto undelivered = first_delivery_error_.load(); undelivered != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return abort_with(note(classify(undelivered), undelivered));
    }
    body = prefix;
    body += "\"op\":\"commit\",\"changes\":";
    body += std::to_string(index);
    body += '}';
    if (auto r = produce(settings_.checkpoint_topic, 0, settings_.checkpoint_key, body, commit, {}); !r) {
      return abort_with(r.error());
    }
    if (auto r = call(rd_kafka_commit_transaction(producer_, timeout_ms())); !r) return failed(r.error());
    {
      const std::scoped_lock lock{mutex_};
      ++counts_.committed;
      counts_.changes += index;
    }
    return t.commit_lsn();
  }

  /// What the sink did so far. Never throws.
  [[nodiscard]] auto counts() const -> sink_counts {
    const std::scoped_lock lock{mutex_};
    return counts_;
  }

  /// librdkafka's code of the last fault (`RD_KAFKA_RESP_ERR_NO_ERROR` when none); print it with
  /// `rd_kafka_err2name`. Never throws.
  [[nodiscard]] auto last_broker_error() const -> rd_kafka_resp_err_t {
    const std::scoped_lock lock{mutex_};
    return last_error_;
  }

 private:
  [[nodiscard]] auto timeout_ms() const -> int { return static_cast<int>(settings_.request_timeout.count()); }

  // librdkafka's own log lines name brokers and topics: the program says nothing but its own lines.
  static void quiet(const rd_kafka_t* /*rk*/, int /*level*/, const char* /*fac*/, const char* /*buf*/) {}

  // A record's delivery report (served by rd_kafka_flush on the pipeline's thread).
  static void on_delivery(rd_kafka_t* /*rk*/, const rd_kafka_message_t* m, void* opaque) {
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) return;
    auto* self = static_cast<kafka_sink*>(opaque);
    auto none = RD_KAFKA_RESP_ERR_NO_ERROR;
    self->first_delivery_error_.compare_exchange_strong(none, m->err);
  }

  static auto set(rd_kafka_conf_t* conf, const char* name, const std::string& value, char (&errstr)[512]) -> bool {
    return rd_kafka_conf_set(conf, name, value.c_str(), errstr, sizeof errstr) == RD_KAFKA_CONF_OK;
  }

  // What producer and checkpoint reader share: the brokers, the user's properties, no log output
  // (librdkafka's lines name brokers, and with `debug` set they could quote a configuration).
  // Nothing when librdkafka refuses one of them (check_properties() has ruled that out at start).
  [[nodiscard]] auto base_config() const -> rd_kafka_conf_t* {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char errstr[512];
    bool ok = set(conf, "client.id", "replicant-kafka", errstr) &&
              set_properties(conf, settings_.properties) == nullptr &&
              set(conf, "bootstrap.servers", settings_.brokers, errstr);
    if (!ok) {
      rd_kafka_conf_destroy(conf);
      return nullptr;
    }
    rd_kafka_conf_set_log_cb(conf, &kafka_sink::quiet);
    return conf;
  }

  auto note(kafka_errc e, rd_kafka_resp_err_t code) -> std::error_code {
    const std::scoped_lock lock{mutex_};
    last_error_ = code;
    return make_error_code(e);
  }
  auto fail(kafka_errc e, rd_kafka_resp_err_t code) -> unexpected<std::error_code> {
    return unexpected<std::error_code>(note(e, code));
  }

  // Hands one record to the producer (copied; waits while its queue is full): @p partition
  // (RD_KAFKA_PARTITION_UA: by key), the `replicant.lsn` header @p commit, and the
  // `replicant.index` header @p index unless it is empty.
  auto produce(const std::string& topic, std::int32_t partition, std::string_view key, std::string_view value,
               const std::string& commit, const std::string& index) -> result<void> {
    rd_kafka_vu_t vu[7] = {};
    std::size_t n = 0;
    vu[n].vtype = RD_KAFKA_VTYPE_TOPIC;
    vu[n++].u.cstr = topic.c_str();
    vu[n].vtype = RD_KAFKA_VTYPE_PARTITION;
    vu[n++].u.i32 = partition;
    vu[n].vtype = RD_KAFKA_VTYPE_MSGFLAGS;
    vu[n++].u.i = RD_KAFKA_MSG_F_COPY | RD_KAFKA_MSG_F_BLOCK;
    vu[n].vtype = RD_KAFKA_VTYPE_KEY;  // copied, never written through
    vu[n].u.mem.ptr = const_cast<char*>(key.data());
    vu[n++].u.mem.size = key.size();
    vu[n].vtype = RD_KAFKA_VTYPE_VALUE;
    vu[n].u.mem.ptr = const_cast<char*>(value.data());
    vu[n++].u.mem.size = value.size();
    vu[n].vtype = RD_KAFKA_VTYPE_HEADER;
    vu[n].u.header.name = lsn_header.data();
    vu[n].u.header.val = commit.data();
    vu[n++].u.header.size = static_cast<ssize_t>(commit.size());
    if (!index.empty()) {
      vu[n].vtype = RD_KAFKA_VTYPE_HEADER;
      vu[n].u.header.name = index_header.data();
      vu[n].u.header.val = index.data();
      vu[n++].u.header.size = static_cast<ssize_t>(index.size());
    }
    rd_kafka_error_t* error = rd_kafka_produceva(producer_, vu, n);
    if (error == nullptr) return {};
    const rd_kafka_resp_err_t code = rd_kafka_error_code(error);
    rd_kafka_error_destroy(error);
    return fail(classify(code), code);
  }

  // A transactional call's outcome; destroys the error.
  auto call(rd_kafka_error_t* error) -> result<void> {
    if (error == nullptr) return {};
    const kafka_errc e = classify(error);
    const rd_kafka_resp_err_t code = rd_kafka_error_code(error);
    rd_kafka_error_destroy(error);
    return fail(e, code);
  }

  // A transactional call failed: abort the transaction when that is what librdkafka asks for.
  auto failed(std::error_code ec) -> unexpected<std::error_code> {
    bump(&sink_counts::failed);
    if (ec == kafka_errc::transaction_aborted && producer_ != nullptr) {
      if (rd_kafka_error_t* e = rd_kafka_abort_transaction(producer_, timeout_ms())) rd_kafka_error_destroy(e);
    }
    return unexpected<std::error_code>(ec);
  }

  // A record could not be produced, or the transaction could not be read: abort the transaction.
  auto abort_with(std::error_code ec) -> unexpected<std::error_code> {
    bump(&sink_counts::failed);
    if (producer_ != nullptr) {
      if (rd_kafka_error_t* e = rd_kafka_abort_transaction(producer_, timeout_ms())) rd_kafka_error_destroy(e);
    }
    return unexpected<std::error_code>(ec);
  }

  auto bump(std::uint64_t sink_counts::* field) -> void {
    const std::scoped_lock lock{mutex_};
    ++(counts_.*field);
  }

  // Reads partition 0 of the checkpoint topic, read_committed, to its end.
  [[nodiscard]] auto read_checkpoint() -> result<std::optional<lsn>> {
    char errstr[512];
    rd_kafka_conf_t* conf = base_config();
    if (conf == nullptr) return fail(kafka_errc::client_failed, RD_KAFKA_RESP_ERR__INVALID_ARG);
    const bool ok = set(conf, "group.id", "replicant-kafka-checkpoint-" + settings_.checkpoint_key, errstr) &&
                    set(conf, "isolation.level", "read_committed", errstr) &&
                    set(conf, "enable.auto.commit", "false", errstr) &&
                    set(conf, "enable.partition.eof", "true", errstr);
    rd_kafka_t* reader = nullptr;
    if (ok) {
      reader = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof errstr);
    } else {
      rd_kafka_conf_destroy(conf);
    }
    if (reader == nullptr) return fail(kafka_errc::client_failed, RD_KAFKA_RESP_ERR__INVALID_ARG);
    rd_kafka_topic_partition_list_t* parts = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(parts, settings_.checkpoint_topic.c_str(), 0)->offset = RD_KAFKA_OFFSET_BEGINNING;
    const rd_kafka_resp_err_t assigned = rd_kafka_assign(reader, parts);
    rd_kafka_topic_partition_list_destroy(parts);
    result<std::optional<lsn>> out = std::optional<lsn>{};
    if (assigned != RD_KAFKA_RESP_ERR_NO_ERROR) out = fail(classify(assigned), assigned);
    const auto deadline = std::chrono::steady_clock::now() + settings_.request_timeout;
    for (bool done = !out; !done;) {
      if (std::chrono::steady_clock::now() >= deadline) {
        out = fail(kafka_errc::unavailable, RD_KAFKA_RESP_ERR__TIMED_OUT);
        break;
      }
      rd_kafka_message_t* m = rd_kafka_consumer_poll(reader, 100);
      if (m == nullptr) continue;
      if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        done = true;
      } else if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        // A transport error may pass (the client retries); anything else is final.
        if (classify(m->err) != kafka_errc::unavailable) {
          out = fail(classify(m->err), m->err);
          done = true;
        }
      } else if (m->key_len == settings_.checkpoint_key.size() &&
                 std::string_view{static_cast<const char*>(m->key), m->key_len} == settings_.checkpoint_key) {
        const auto at = record_lsn(m);
        if (!at) {
          out = fail(kafka_errc::checkpoint_unreadable, RD_KAFKA_RESP_ERR_NO_ERROR);
          done = true;
        } else if (!*out || **out < *at) {
          *out = *at;
        }
      }
      rd_kafka_message_destroy(m);
    }
    rd_kafka_destroy_flags(reader, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
    return out;
  }

  // The commit LSN in a record's `replicant.lsn` header, or none.
  [[nodiscard]] static auto record_lsn(rd_kafka_message_t* m) -> std::optional<lsn> {
    rd_kafka_headers_t* headers = nullptr;
    if (rd_kafka_message_headers(m, &headers) != RD_KAFKA_RESP_ERR_NO_ERROR) return std::nullopt;
    const void* value = nullptr;
    std::size_t size = 0;
    if (rd_kafka_header_get_last(headers, lsn_header.data(), &value, &size) != RD_KAFKA_RESP_ERR_NO_ERROR ||
        value == nullptr) {
      return std::nullopt;
    }
    auto parsed = parse_lsn(std::string_view{static_cast<const char*>(value), size});
    if (!parsed) return std::nullopt;
    return *parsed;
  }

  auto drop_producer() noexcept -> void {
    if (producer_ == nullptr) return;
    rd_kafka_destroy(producer_);
    producer_ = nullptr;
  }

  const sink_settings settings_;
  rd_kafka_t* producer_ = nullptr;  // the pipeline thread's
  std::optional<lsn> checkpoint_;   // the checkpoint read at the connection's start
  mutable std::mutex mutex_;        // guards what follows
  sink_counts counts_;
  rd_kafka_resp_err_t last_error_ = RD_KAFKA_RESP_ERR_NO_ERROR;
  // The first record of the current transaction the brokers did not store (its delivery report).
  std::atomic<rd_kafka_resp_err_t> first_delivery_error_{RD_KAFKA_RESP_ERR_NO_ERROR};
};

static_assert(replicant::sink<kafka_sink>);

}  // namespace replicant::examples::kafka

#endif  // REPLICANT_EXAMPLES_KAFKA_KAFKA_SINK_HPP
