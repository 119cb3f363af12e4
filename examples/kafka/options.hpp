// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_KAFKA_OPTIONS_HPP
#define REPLICANT_EXAMPLES_KAFKA_OPTIONS_HPP

/// @file
/// The command line of replicant-kafka. Refusals name the option, never its value: `--brokers`
/// and `--dsn` may carry credentials.

#include "../common/cli.hpp"

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace replicant::examples::kafka {

/// The text of `--help`.
inline constexpr std::string_view usage_text =
    R"(replicant-kafka: writes the committed changes of PostgreSQL tables to Kafka, each source
transaction as one Kafka transaction holding its change records and a checkpoint record.

Usage:
  replicant-kafka --slot NAME --publication NAME --brokers LIST --topic NAME --checkpoint-topic NAME [options]

Source:
  --dsn CONNINFO        libpq connection string of the source (default: the PG* variables)
  --slot NAME           the logical replication slot (pgoutput)
  --publication NAME    a publication to stream (repeatable)
  --create-slot         create the slot when it does not exist
  --go-forward-only     without a checkpoint in the checkpoint topic, start from now
  --status-interval S   seconds between status updates to the server (default 10)
  --max-inflight-mib N  memory budget of the pipeline in MiB (default 64)

Broker:
  --brokers LIST        bootstrap servers, host:port,... (never printed)
  --topic NAME          the topic of the change records (key <schema>.<table>); it must exist
  --checkpoint-topic NAME
                        the compacted topic whose partition 0 keeps this slot's checkpoint
                        records (key: the slot's name); it must exist, and no other sink may
                        write to that partition
  --transactional-id ID the producer's transactional.id (default: replicant-<slot>); keep it the
                        same across restarts, so that a restarted sink fences the one before it
  --request-timeout-ms MS
                        how long one transactional call, one record's delivery, or reading the
                        checkpoint may take (default 10000)
  --transaction-timeout-ms MS
                        transaction.timeout.ms: how long the broker keeps a transaction open
                        (default 60000; at least --request-timeout-ms)
  --max-outage-s S      how long the cluster may stay unavailable (no answer, no leader, no
                        coordinator) before the program gives up with exit status 1 (default 60)
  -h, --help            print this help and exit

Readers must use isolation.level=read_committed. Ctrl-C or SIGTERM stops cleanly; SIGKILL at any
moment is safe too. Exit status: 0 when stopped, 1 on a failure, 2 when refused to start.
See docs/scale_out.md.
)";

/**
 * What the command line asked for.
 *
 * @par Thread safety
 * A value type.
 */
struct options {
  /// The source: DSN, slot, publications, slot creation, status interval.
  slot_options slot;
  /// Accept that a slot without a checkpoint starts now.
  bool go_forward_only = false;
  /// The pipeline's resident budget in MiB; 1 to 65,536.
  std::uint32_t max_inflight_mib = 64;
  /// The bootstrap servers (never printed).
  std::string brokers;
  /// The change topic.
  std::string topic;
  /// The checkpoint topic.
  std::string checkpoint_topic;
  /// The transactional.id; empty: `replicant-<slot>`.
  std::string transactional_id;
  /// One transactional call's bound; 100 ms to 10 min.
  std::chrono::milliseconds request_timeout{10000};
  /// transaction.timeout.ms; 1 s to 15 min.
  std::chrono::milliseconds transaction_timeout{60000};
  /// How long the cluster may stay unavailable; 1 s to 1 day.
  std::chrono::seconds max_outage{60};
  /// Print the usage text and exit.
  bool help = false;
};

/// A Kafka topic name: 1 to 249 of `A-Z a-z 0-9 . _ -`, not `.` or `..`. Never throws.
[[nodiscard]] constexpr auto valid_topic_name(std::string_view name) noexcept -> bool {
  if (name.empty() || name.size() > 249 || name == "." || name == "..") return false;
  for (const char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
          c == '.')) {
      return false;
    }
  }
  return true;
}

/**
 * Parses @p args (the arguments after the program name).
 * @return the options, or a @ref refusal that never repeats an argument.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto parse_options(std::span<const char* const> args) -> std::variant<options, refusal> {
  options o;
  argument_reader reader{args};
  while (reader.next()) {
    const std::string_view name = reader.name();
    const bool inline_value = reader.has_inline_value();
    const auto number = [&](std::uint32_t low, std::uint32_t high) -> std::optional<std::uint32_t> {
      const auto v = reader.take_value();
      return v ? parse_unsigned(*v, low, high) : std::nullopt;
    };
    if (const auto read = read_slot_option(reader, o.slot); read.matched) {
      if (read.refused) return *read.refused;
    } else if ((name == "-h" || name == "--help") && !inline_value) {
      o.help = true;
    } else if (name == "--go-forward-only" && !inline_value) {
      o.go_forward_only = true;
    } else if (name == "--max-inflight-mib") {
      const auto n = number(1, 65'536);
      if (!n) return refusal{"--max-inflight-mib needs a number from 1 to 65536"};
      o.max_inflight_mib = *n;
    } else if (name == "--brokers") {
      const auto v = reader.take_value();
      if (!v || v->empty()) return refusal{"--brokers needs one or more host:port"};
      o.brokers = std::string{*v};
    } else if (name == "--topic" || name == "--checkpoint-topic") {
      const auto v = reader.take_value();
      if (!v || !valid_topic_name(*v)) {
        return refusal{std::string{name} + " is 1 to 249 characters of A-Z, a-z, 0-9, ., _ and -"};
      }
      (name == "--topic" ? o.topic : o.checkpoint_topic) = std::string{*v};
    } else if (name == "--transactional-id") {
      const auto v = reader.take_value();
      if (!v || v->empty() || v->size() > 249) return refusal{"--transactional-id is 1 to 249 characters"};
      o.transactional_id = std::string{*v};
    } else if (name == "--request-timeout-ms") {
      const auto n = number(100, 600'000);
      if (!n) return refusal{"--request-timeout-ms needs a number of milliseconds from 100 to 600000"};
      o.request_timeout = std::chrono::milliseconds{*n};
    } else if (name == "--transaction-timeout-ms") {
      const auto n = number(1000, 900'000);
      if (!n) return refusal{"--transaction-timeout-ms needs a number of milliseconds from 1000 to 900000"};
      o.transaction_timeout = std::chrono::milliseconds{*n};
    } else if (name == "--max-outage-s") {
      const auto n = number(1, 86'400);
      if (!n) return refusal{"--max-outage-s needs a number of seconds from 1 to 86400"};
      o.max_outage = std::chrono::seconds{*n};
    } else {
      return refusal{"unknown option or misplaced value (see --help)"};
    }
  }
  if (o.help) return o;
  if (o.brokers.empty() || o.topic.empty() || o.checkpoint_topic.empty()) {
    return refusal{"--brokers, --topic and --checkpoint-topic are required (see --help)"};
  }
  if (o.topic == o.checkpoint_topic) return refusal{"--topic and --checkpoint-topic must differ"};
  if (o.transaction_timeout < o.request_timeout) {
    return refusal{"--transaction-timeout-ms must be at least --request-timeout-ms"};
  }
  if (auto missing = missing_slot_option(o.slot)) return *missing;
  if (o.transactional_id.empty()) o.transactional_id = "replicant-" + o.slot.slot;
  return o;
}

}  // namespace replicant::examples::kafka

#endif  // REPLICANT_EXAMPLES_KAFKA_OPTIONS_HPP
