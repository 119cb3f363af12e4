// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_KAFKA_KAFKA_ERROR_HPP
#define REPLICANT_EXAMPLES_KAFKA_KAFKA_ERROR_HPP

/// @file
/// The broker faults of replicant-kafka as an error category of its own (`kafka_errc`), so that a
/// halt's cause names the fault in fixed words. librdkafka's error strings are never passed on
/// (they may name a topic or a broker address); the program prints fixed text, librdkafka's error
/// name (`rd_kafka_err2name`, e.g. `_TIMED_OUT`) and positions only.

#include <librdkafka/rdkafka.h>

#include <string>
#include <system_error>

namespace replicant::examples::kafka {

/// Why the sink could not produce, commit, or read its checkpoint. Each has a fixed message.
enum class kafka_errc {
  /// The client could not be created (a configuration librdkafka refused).
  client_failed = 1,
  /// The brokers did not answer in time, or none was reachable, or a leader or the transaction
  /// coordinator was unavailable. Retried by the program for `--max-outage-s`.
  unavailable,
  /// The broker aborted the transaction (an abortable error); nothing of it is committed. Retried.
  transaction_aborted,
  /// The producer is fenced: another producer with the same `transactional.id` started (a second
  /// sink on the slot), or the producer's epoch is no longer valid. Fatal: the program stops.
  fenced,
  /// A fatal error of the transactional producer other than fencing. The program stops.
  fatal,
  /// The broker refused a record for good (the topic missing, no authorisation, a record too
  /// large, ...). The program stops.
  refused,
  /// The checkpoint topic holds a record under this slot's key that this sink did not write.
  checkpoint_unreadable,
};

}  // namespace replicant::examples::kafka

template <>
struct std::is_error_code_enum<replicant::examples::kafka::kafka_errc> : std::true_type {};

namespace replicant::examples::kafka {

/// Whether @p e may pass by itself (a broker restarting, an election, a transaction the broker
/// aborted): the program retries those within its outage bound. Never throws.
[[nodiscard]] constexpr auto is_transient(kafka_errc e) noexcept -> bool {
  return e == kafka_errc::unavailable || e == kafka_errc::transaction_aborted;
}

namespace detail {

class kafka_category_impl final : public std::error_category {
 public:
  [[nodiscard]] auto name() const noexcept -> const char* override { return "replicant.kafka"; }
  [[nodiscard]] auto message(int code) const -> std::string override {
    switch (static_cast<kafka_errc>(code)) {
      case kafka_errc::client_failed: return "the Kafka client could not be created";
      case kafka_errc::unavailable: return "the Kafka cluster is unavailable (no answer, no leader or no coordinator)";
      case kafka_errc::transaction_aborted: return "the Kafka transaction was aborted";
      case kafka_errc::fenced: return "the producer was fenced (another producer with the same transactional.id)";
      case kafka_errc::fatal: return "the transactional producer failed fatally";
      case kafka_errc::refused: return "the Kafka cluster refused a record";
      case kafka_errc::checkpoint_unreadable: return "the checkpoint topic holds a record this sink did not write";
    }
    return "unknown kafka error";
  }
};

}  // namespace detail

/// The category of @ref kafka_errc, named `"replicant.kafka"`. Never throws.
[[nodiscard]] inline auto kafka_category() noexcept -> const std::error_category& {
  static const detail::kafka_category_impl instance;
  return instance;
}

/// Makes @p e a `std::error_code` (found by argument-dependent lookup). Never throws.
[[nodiscard]] inline auto make_error_code(kafka_errc e) noexcept -> std::error_code {
  return {static_cast<int>(e), kafka_category()};
}

/// Whether @p ec is a transient @ref kafka_errc. Never throws.
[[nodiscard]] inline auto is_transient(std::error_code ec) noexcept -> bool {
  return ec.category() == kafka_category() && is_transient(static_cast<kafka_errc>(ec.value()));
}

/// The fault behind a librdkafka response code met outside a transactional call (a delivery
/// report, a metadata or consumer call). Never throws.
[[nodiscard]] inline auto classify(rd_kafka_resp_err_t err) noexcept -> kafka_errc {
  switch (err) {
    case RD_KAFKA_RESP_ERR__TIMED_OUT:
    case RD_KAFKA_RESP_ERR__MSG_TIMED_OUT:
    case RD_KAFKA_RESP_ERR__TRANSPORT:
    case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
    case RD_KAFKA_RESP_ERR__WAIT_COORD:
    case RD_KAFKA_RESP_ERR__TIMED_OUT_QUEUE:
    case RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT:
    case RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION:
    case RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS:
    case RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_COORDINATOR:
    case RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS:
    case RD_KAFKA_RESP_ERR_CONCURRENT_TRANSACTIONS:
    case RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION: return kafka_errc::unavailable;
    // Records purged from the queue when librdkafka aborts a transaction after another failure.
    case RD_KAFKA_RESP_ERR__PURGE_QUEUE:
    case RD_KAFKA_RESP_ERR__PURGE_INFLIGHT: return kafka_errc::transaction_aborted;
    case RD_KAFKA_RESP_ERR__FENCED:
    case RD_KAFKA_RESP_ERR_PRODUCER_FENCED:
    case RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH: return kafka_errc::fenced;
    default: return kafka_errc::refused;
  }
}

/**
 * The fault behind a failed transactional call (init, begin, commit, abort): fatal errors and
 * fencing stop the program, abortable ones abort the transaction, retriable ones count as an
 * outage, the rest as a refusal. Does not destroy @p error. Never throws.
 */
[[nodiscard]] inline auto classify(const rd_kafka_error_t* error) noexcept -> kafka_errc {
  const auto code = rd_kafka_error_code(error);
  if (rd_kafka_error_is_fatal(error) != 0) {
    return classify(code) == kafka_errc::fenced ? kafka_errc::fenced : kafka_errc::fatal;
  }
  if (rd_kafka_error_txn_requires_abort(error) != 0) return kafka_errc::transaction_aborted;
  if (rd_kafka_error_is_retriable(error) != 0) return kafka_errc::unavailable;
  const auto c = classify(code);
  return c == kafka_errc::fenced ? kafka_errc::fenced : c;
}

}  // namespace replicant::examples::kafka

#endif  // REPLICANT_EXAMPLES_KAFKA_KAFKA_ERROR_HPP
