// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_JETSTREAM_OPTIONS_HPP
#define REPLICANT_EXAMPLES_JETSTREAM_OPTIONS_HPP

/// @file
/// The command line of replicant-jetstream. Refusals name the option, never its value: `--nats`
/// may carry a password, `--dsn` too.

#include "../common/cli.hpp"
#include "subjects.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace replicant::examples::jetstream {

/// The text of `--help`.
inline constexpr std::string_view usage_text =
    R"(replicant-jetstream: publishes the committed changes of PostgreSQL tables to a NATS
JetStream stream, every change once, each transaction ended by a commit marker.

Usage:
  replicant-jetstream --slot NAME --publication NAME --nats URLS --stream NAME --subject-prefix PREFIX [options]
  replicant-jetstream --create-stream --nats URLS --stream NAME --subject-prefix PREFIX [--replicas N]
                      [--duplicate-window-s S] [--max-bytes N]

Source:
  --dsn CONNINFO        libpq connection string of the source (default: the PG* variables)
  --slot NAME           the logical replication slot (pgoutput)
  --publication NAME    a publication to stream (repeatable)
  --create-slot         create the slot when it does not exist
  --go-forward-only     without a checkpoint in the stream, start from now
  --status-interval S   seconds between status updates to the server (default 10)
  --max-inflight-mib N  memory budget of the pipeline in MiB (default 64)

Broker:
  --nats URLS           comma-separated NATS server URLs, e.g. nats://user:password@host:4222 (never printed)
  --stream NAME         the JetStream stream; it must exist (see --create-stream)
  --subject-prefix P    changes go to P.<schema>.<table>, commit markers to P.commit
  --max-unconfirmed N   transactions handed off and not yet acknowledged by JetStream (default 1000)
  --max-pending N       messages published and not yet acknowledged by JetStream (default 4096)
  --ack-wait-ms MS      how long one publish may wait for its acknowledgement (default 5000)
  --max-outage-s S      how long the stream may stay unavailable (no leader, no quorum, no answer)
                        before the program gives up with exit status 1 (default 60)

Setting up:
  --create-stream       create the stream and exit: subjects P.>, file storage, limits retention,
                        discard new (a full stream refuses messages instead of dropping old ones)
  --replicas N          with --create-stream: replicas, 1 to 5 (default 3)
  --duplicate-window-s S
                        with --create-stream: the deduplication window (default 120)
  --max-bytes N         with --create-stream: the stream's byte limit (default: none)
  -h, --help            print this help and exit

The checkpoint lives in the stream: the last commit marker. Ctrl-C or SIGTERM stops cleanly; SIGKILL
at any moment is safe too. Exit status: 0 when stopped, 1 on a failure, 2 when refused to start.
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
  /// The NATS servers (never printed).
  std::string nats;
  /// The stream.
  std::string stream;
  /// The subject prefix.
  std::string prefix;
  /// Transactions out at once; 1 to 1,000,000.
  std::uint32_t max_unconfirmed = 1000;
  /// Messages unacknowledged at once; 1 to 1,000,000.
  std::uint32_t max_pending = 4096;
  /// The wait for one acknowledgement; 100 ms to 10 min.
  std::chrono::milliseconds ack_wait{5000};
  /// How long the stream may stay unavailable; 1 s to 1 day.
  std::chrono::seconds max_outage{60};
  /// Create the stream and exit.
  bool create_stream = false;
  /// With create_stream: replicas, 1 to 5.
  std::uint32_t replicas = 3;
  /// With create_stream: the duplicate window; 1 s to 1 day.
  std::chrono::seconds duplicate_window{120};
  /// With create_stream: the byte limit (none: unlimited).
  std::optional<std::uint64_t> max_bytes;
  /// Print the usage text and exit.
  bool help = false;
};

/// A JetStream stream name: 1 to 64 of `A-Z a-z 0-9 _ -`. Never throws.
[[nodiscard]] constexpr auto valid_stream_name(std::string_view name) noexcept -> bool {
  if (name.empty() || name.size() > 64) return false;
  for (const char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) {
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
  bool setup_given = false;
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
    } else if (name == "--create-stream" && !inline_value) {
      o.create_stream = true;
    } else if (name == "--max-inflight-mib") {
      const auto n = number(1, 65'536);
      if (!n) return refusal{"--max-inflight-mib needs a number from 1 to 65536"};
      o.max_inflight_mib = *n;
    } else if (name == "--nats") {
      const auto v = reader.take_value();
      if (!v || v->empty()) return refusal{"--nats needs one or more server URLs"};
      o.nats = std::string{*v};
    } else if (name == "--stream") {
      const auto v = reader.take_value();
      if (!v || !valid_stream_name(*v)) return refusal{"--stream is 1 to 64 characters of A-Z, a-z, 0-9, _ and -"};
      o.stream = std::string{*v};
    } else if (name == "--subject-prefix") {
      const auto v = reader.take_value();
      if (!v || !valid_prefix(*v)) {
        return refusal{"--subject-prefix is one or more tokens of A-Z, a-z, 0-9, _ and -, separated by dots"};
      }
      o.prefix = std::string{*v};
    } else if (name == "--max-unconfirmed") {
      const auto n = number(1, 1'000'000);
      if (!n) return refusal{"--max-unconfirmed needs a number from 1 to 1000000"};
      o.max_unconfirmed = *n;
    } else if (name == "--max-pending") {
      const auto n = number(1, 1'000'000);
      if (!n) return refusal{"--max-pending needs a number from 1 to 1000000"};
      o.max_pending = *n;
    } else if (name == "--ack-wait-ms") {
      const auto n = number(100, 600'000);
      if (!n) return refusal{"--ack-wait-ms needs a number of milliseconds from 100 to 600000"};
      o.ack_wait = std::chrono::milliseconds{*n};
    } else if (name == "--max-outage-s") {
      const auto n = number(1, 86'400);
      if (!n) return refusal{"--max-outage-s needs a number of seconds from 1 to 86400"};
      o.max_outage = std::chrono::seconds{*n};
    } else if (name == "--replicas") {
      const auto n = number(1, 5);
      if (!n) return refusal{"--replicas needs a number from 1 to 5"};
      o.replicas = *n;
      setup_given = true;
    } else if (name == "--duplicate-window-s") {
      const auto n = number(1, 86'400);
      if (!n) return refusal{"--duplicate-window-s needs a number of seconds from 1 to 86400"};
      o.duplicate_window = std::chrono::seconds{*n};
      setup_given = true;
    } else if (name == "--max-bytes") {
      const auto n = number(1024, 4'000'000'000U);
      if (!n) return refusal{"--max-bytes needs a number from 1024 to 4000000000"};
      o.max_bytes = *n;
      setup_given = true;
    } else {
      return refusal{"unknown option or misplaced value (see --help)"};
    }
  }
  if (o.help) return o;
  if (o.nats.empty() || o.stream.empty() || o.prefix.empty()) {
    return refusal{"--nats, --stream and --subject-prefix are required (see --help)"};
  }
  if (setup_given && !o.create_stream) {
    return refusal{"--replicas, --duplicate-window-s and --max-bytes apply to --create-stream only"};
  }
  if (o.create_stream) return o;
  if (auto missing = missing_slot_option(o.slot)) return *missing;
  return o;
}

}  // namespace replicant::examples::jetstream

#endif  // REPLICANT_EXAMPLES_JETSTREAM_OPTIONS_HPP
