// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_KAFKA_OPTIONS_HPP
#define REPLICANT_EXAMPLES_KAFKA_OPTIONS_HPP

/// @file
/// The command line of replicant-kafka. Refusals name the option, never its value: `--brokers`
/// and `--dsn` may carry credentials.

#include "../common/cli.hpp"
#include "../common/replication_options.hpp"
#include "properties.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace replicant::examples::kafka {

/**
 * What the command line asked for.
 *
 * @par Thread safety
 * A value type.
 */
struct options {
  /// The source: DSN, slot, publications, slot creation, where to start, status interval.
  replication_options replication;
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
  /// librdkafka properties for the producer and the checkpoint reader: the properties file's,
  /// then `-X`'s, in order (a later one wins). Values never printed.
  std::vector<property> properties;
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

namespace detail {

// The command line as text, before its values are checked: CLI11 reads into these.
struct arguments {
  command_line cli{"replicant-kafka",
                   "Writes the committed changes of PostgreSQL tables to Kafka, each source transaction as one Kafka\n"
                   "transaction holding its change records and a checkpoint record.",
                   "Readers must use isolation.level=read_committed. Ctrl-C or SIGTERM stops cleanly; SIGKILL at any\n"
                   "moment is safe too. Exit status: 0 when stopped, 1 on a failure, 2 when refused to start.\n"
                   "See docs/scale_out.md."};
  replication_arguments replication{
      cli,
      {.create_slot_help = "create the slot when it does not exist",
       .go_forward_only_help =
           "without a checkpoint in the checkpoint topic, start at the slot's acknowledged position"}};
  max_inflight_argument max_inflight_mib;
  std::string brokers;
  std::string topic;
  std::string checkpoint_topic;
  std::string transactional_id;
  std::string request_timeout_ms = "10000";
  std::string transaction_timeout_ms = "60000";
  std::string max_outage_s = "60";
  std::vector<std::string> properties;
  std::string properties_file;

  arguments() {
    max_inflight_mib.declare(cli);
    const std::string broker = "Broker";
    cli.text("--brokers", brokers, "LIST", "", "bootstrap servers, host:port,... (never printed)")
        .required()
        .group(broker);
    cli.text("--topic", topic, "NAME", "", "the topic of the change records (key <schema>.<table>); it must exist")
        .required()
        .group(broker);
    cli.text("--checkpoint-topic", checkpoint_topic, "NAME", "",
             "the compacted topic whose partition 0 keeps this slot's checkpoint\nrecords (key: the slot's name); it "
             "must exist, and no other sink\nmay write to that partition")
        .required()
        .group(broker);
    cli.text("--transactional-id", transactional_id, "ID", "replicant-<slot>",
             "the producer's transactional.id; keep it the same across restarts,\nso that a restarted sink fences "
             "the one before it")
        .group(broker);
    cli.text("--request-timeout-ms", request_timeout_ms, "MS", "10000",
             "how long one transactional call, one record's delivery, or reading\nthe checkpoint may take")
        .group(broker);
    cli.text("--transaction-timeout-ms", transaction_timeout_ms, "MS", "60000",
             "transaction.timeout.ms: how long the broker keeps a transaction\nopen (at least --request-timeout-ms)")
        .group(broker);
    cli.text("--max-outage-s", max_outage_s, "S", "60",
             "how long the cluster may stay unavailable (no answer, no leader, no\ncoordinator) before the program "
             "gives up with exit status 1")
        .group(broker);
    const std::string client = "librdkafka properties (SASL, SSL, ...)";
    cli.texts("-X,--property", properties, "NAME=VALUE", "none",
              "a librdkafka property for the producer and the checkpoint reader,\ne.g. -X security.protocol=SASL_SSL "
              "(repeatable; applied after\n--properties-file; values are never printed, but a command line\nis "
              "visible to the machine's other users: keep secrets in the file)")
        .group(client);
    cli.text("--properties-file", properties_file, "FILE", "none",
             "librdkafka properties, one NAME=VALUE a line; # starts a comment")
        .group(client);
  }
  arguments(const arguments&) = delete;
  auto operator=(const arguments&) -> arguments& = delete;
};

// The properties of --properties-file, then of -X, checked by librdkafka, into @p into.
[[nodiscard]] inline auto read_properties(const arguments& a, std::vector<property>& into) -> std::optional<refusal> {
  if (a.cli.given("--properties-file")) {
    auto from_file = read_properties_file(a.properties_file);
    if (auto* bad = std::get_if<refusal>(&from_file)) return std::move(*bad);
    into = std::get<std::vector<property>>(std::move(from_file));
  }
  for (std::size_t i = 0; i < a.properties.size(); ++i) {
    auto parsed = parse_property(a.properties[i], "-X number " + std::to_string(i + 1));
    if (auto* bad = std::get_if<refusal>(&parsed)) return std::move(*bad);
    into.push_back(std::get<property>(std::move(parsed)));
  }
  return check_properties(into);
}

// The values @p a read, checked, into @p o: parse_options() after the syntax and `--help`.
// @throws std::bad_alloc only.
inline auto check(const arguments& a, options& o) -> std::optional<refusal> {
  if (auto bad = a.max_inflight_mib.check(o.max_inflight_mib)) return bad;
  if (a.brokers.empty()) return refusal{"--brokers needs one or more host:port"};
  o.brokers = a.brokers;
  if (!valid_topic_name(a.topic)) return refusal{"--topic is 1 to 249 characters of A-Z, a-z, 0-9, ., _ and -"};
  o.topic = a.topic;
  if (!valid_topic_name(a.checkpoint_topic)) {
    return refusal{"--checkpoint-topic is 1 to 249 characters of A-Z, a-z, 0-9, ., _ and -"};
  }
  o.checkpoint_topic = a.checkpoint_topic;
  if (a.cli.given("--transactional-id")) {
    if (a.transactional_id.empty() || a.transactional_id.size() > 249) {
      return refusal{"--transactional-id is 1 to 249 characters"};
    }
    o.transactional_id = a.transactional_id;
  }
  const auto request = parse_unsigned(a.request_timeout_ms, 100, 600'000);
  if (!request) return refusal{"--request-timeout-ms needs a number of milliseconds from 100 to 600000"};
  o.request_timeout = std::chrono::milliseconds{*request};
  const auto transaction = parse_unsigned(a.transaction_timeout_ms, 1000, 900'000);
  if (!transaction) return refusal{"--transaction-timeout-ms needs a number of milliseconds from 1000 to 900000"};
  o.transaction_timeout = std::chrono::milliseconds{*transaction};
  const auto outage = parse_unsigned(a.max_outage_s, 1, 86'400);
  if (!outage) return refusal{"--max-outage-s needs a number of seconds from 1 to 86400"};
  o.max_outage = std::chrono::seconds{*outage};
  if (auto bad = detail::read_properties(a, o.properties)) return *bad;
  if (o.topic == o.checkpoint_topic) return refusal{"--topic and --checkpoint-topic must differ"};
  if (o.transaction_timeout < o.request_timeout) {
    return refusal{"--transaction-timeout-ms must be at least --request-timeout-ms"};
  }
  if (auto bad = a.replication.check(o.replication)) return bad->to_refusal();
  if (o.transactional_id.empty()) o.transactional_id = "replicant-" + o.replication.slot;
  return std::nullopt;
}

}  // namespace detail

/// The `--help` text: every option with its default. @throws std::bad_alloc only.
[[nodiscard]] inline auto usage() -> std::string { return usage_of<detail::arguments>(); }

/**
 * Parses @p args (the arguments after the program name).
 * @return the options, or a @ref refusal that never repeats an argument.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto parse_options(std::span<const char* const> args) -> std::variant<options, refusal> {
  return parse_command_line<options, detail::arguments>(args, detail::check);
}

}  // namespace replicant::examples::kafka

#endif  // REPLICANT_EXAMPLES_KAFKA_OPTIONS_HPP
