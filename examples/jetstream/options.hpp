// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_JETSTREAM_OPTIONS_HPP
#define REPLICANT_EXAMPLES_JETSTREAM_OPTIONS_HPP

/// @file
/// The command line of replicant-jetstream. Refusals name the option, never its value: `--nats`
/// may carry a password, `--dsn` too.

#include "../common/cli.hpp"
#include "../common/replication_options.hpp"
#include "security.hpp"
#include "subjects.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace replicant::examples::jetstream {

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
  /// The NATS servers (never printed).
  std::string nats;
  /// Credentials and TLS besides the URLs'.
  nats_security security;
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

namespace detail {

// The command line as text, before its values are checked: CLI11 reads into these.
struct arguments {
  command_line cli{
      "replicant-jetstream",
      "Publishes the committed changes of PostgreSQL tables to a NATS JetStream stream, every change\n"
      "once, each transaction ended by a commit marker.\n\n"
      "  replicant-jetstream --slot NAME --publication NAME --nats URLS --stream NAME --subject-prefix P\n"
      "  replicant-jetstream --create-stream --nats URLS --stream NAME --subject-prefix P [--replicas N]\n"
      "                      [--duplicate-window-s S] [--max-bytes N]",
      "The checkpoint lives in the stream: the last commit marker. Ctrl-C or SIGTERM stops cleanly; SIGKILL\n"
      "at any moment is safe too. Exit status: 0 when stopped, 1 on a failure, 2 when refused to start.\n"
      "See docs/scale_out.md."};
  replication_arguments replication{
      cli,
      {.create_slot_help = "create the slot when it does not exist",
       .go_forward_only_help = "without a checkpoint in the stream, start at the slot's acknowledged position",
       .required = false}};
  max_inflight_argument max_inflight_mib;
  std::string nats;
  std::string stream;
  std::string prefix;
  std::string max_unconfirmed = "1000";
  std::string max_pending = "4096";
  std::string ack_wait_ms = "5000";
  std::string max_outage_s = "60";
  bool create_stream = false;
  std::string replicas = "3";
  std::string duplicate_window_s = "120";
  std::string max_bytes;

  arguments() {
    max_inflight_mib.declare(cli);
    const std::string broker = "Broker";
    cli.text(
           "--nats", nats, "URLS", "",
           "comma-separated NATS server URLs, e.g.\nnats://user:password@host:4222 or tls://host:4222 (never printed)")
        .required()
        .group(broker);
    cli.text("--stream", stream, "NAME", "", "the JetStream stream; it must exist (see --create-stream)")
        .required()
        .group(broker);
    cli.text("--subject-prefix", prefix, "P", "", "changes go to P.<schema>.<table>, commit markers to P.commit")
        .required()
        .group(broker);
    cli.text("--max-unconfirmed", max_unconfirmed, "N", "1000",
             "transactions handed off and not yet acknowledged by JetStream")
        .group(broker);
    cli.text("--max-pending", max_pending, "N", "4096", "messages published and not yet acknowledged by JetStream")
        .group(broker);
    cli.text("--ack-wait-ms", ack_wait_ms, "MS", "5000", "how long one publish may wait for its acknowledgement")
        .group(broker);
    cli.text("--max-outage-s", max_outage_s, "S", "60",
             "how long the stream may stay unavailable (no leader, no quorum,\nno answer) before the program gives "
             "up with exit status 1;\nwith --create-stream, how long it waits for the cluster")
        .group(broker);
    const std::string setup = "Setting up";
    cli.flag("--create-stream", create_stream,
             "create the stream and exit: subjects P.>, file storage, limits\nretention, discard new (a full "
             "stream refuses messages instead of\ndropping old ones)")
        .group(setup);
    cli.text("--replicas", replicas, "N", "3", "with --create-stream: replicas, 1 to 5").group(setup);
    cli.text("--duplicate-window-s", duplicate_window_s, "S", "120", "with --create-stream: the deduplication window")
        .group(setup);
    cli.text("--max-bytes", max_bytes, "N", "none", "with --create-stream: the stream's byte limit").group(setup);
  }
  // After the broker's and the setting-up options in --help: how to reach a secured cluster.
  security_arguments security{cli};
  arguments(const arguments&) = delete;
  auto operator=(const arguments&) -> arguments& = delete;
};

// The values @p a read, checked, into @p o: parse_options() after the syntax and `--help`.
// @throws std::bad_alloc only.
inline auto check(const arguments& a, options& o) -> std::optional<refusal> {
  const auto given = [&](const char* name) { return a.cli.given(name); };
  o.create_stream = a.create_stream;
  if (auto bad = a.max_inflight_mib.check(o.max_inflight_mib)) return bad;
  if (a.nats.empty()) return refusal{"--nats needs one or more server URLs"};
  o.nats = a.nats;
  if (auto bad = a.security.check(o.security)) return *bad;
  if (!valid_stream_name(a.stream)) return refusal{"--stream is 1 to 64 characters of A-Z, a-z, 0-9, _ and -"};
  o.stream = a.stream;
  if (!valid_prefix(a.prefix)) {
    return refusal{"--subject-prefix is one or more tokens of A-Z, a-z, 0-9, _ and -, separated by dots"};
  }
  o.prefix = a.prefix;
  const auto unconfirmed = parse_unsigned(a.max_unconfirmed, 1, 1'000'000);
  if (!unconfirmed) return refusal{"--max-unconfirmed needs a number from 1 to 1000000"};
  o.max_unconfirmed = *unconfirmed;
  const auto pending = parse_unsigned(a.max_pending, 1, 1'000'000);
  if (!pending) return refusal{"--max-pending needs a number from 1 to 1000000"};
  o.max_pending = *pending;
  const auto ack_wait = parse_unsigned(a.ack_wait_ms, 100, 600'000);
  if (!ack_wait) return refusal{"--ack-wait-ms needs a number of milliseconds from 100 to 600000"};
  o.ack_wait = std::chrono::milliseconds{*ack_wait};
  const auto outage = parse_unsigned(a.max_outage_s, 1, 86'400);
  if (!outage) return refusal{"--max-outage-s needs a number of seconds from 1 to 86400"};
  o.max_outage = std::chrono::seconds{*outage};
  const auto replicas = parse_unsigned(a.replicas, 1, 5);
  if (!replicas) return refusal{"--replicas needs a number from 1 to 5"};
  o.replicas = *replicas;
  const auto window = parse_unsigned(a.duplicate_window_s, 1, 86'400);
  if (!window) return refusal{"--duplicate-window-s needs a number of seconds from 1 to 86400"};
  o.duplicate_window = std::chrono::seconds{*window};
  if (given("--max-bytes")) {
    const auto bytes = parse_unsigned(a.max_bytes, 1024, 4'000'000'000U);
    if (!bytes) return refusal{"--max-bytes needs a number from 1024 to 4000000000"};
    o.max_bytes = *bytes;
  }
  const bool setup_given = given("--replicas") || given("--duplicate-window-s") || given("--max-bytes");
  if (setup_given && !o.create_stream) {
    return refusal{"--replicas, --duplicate-window-s and --max-bytes apply to --create-stream only"};
  }
  if (o.create_stream) return std::nullopt;
  if (auto bad = a.replication.check(o.replication)) return bad->to_refusal();
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

}  // namespace replicant::examples::jetstream

#endif  // REPLICANT_EXAMPLES_JETSTREAM_OPTIONS_HPP
