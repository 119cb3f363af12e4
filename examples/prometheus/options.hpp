// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_PROMETHEUS_OPTIONS_HPP
#define REPLICANT_EXAMPLES_PROMETHEUS_OPTIONS_HPP

/// @file
/// replicant-prometheus's command line: parsing and validation, before anything listens or
/// connects. A refusal names the option, never the value given.

#include "../common/cli.hpp"
#include "../common/replication_options.hpp"

#include <replicant/pipeline/options.hpp>

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace replicant::examples::prometheus {

/// Why the command line was refused (the programs share the type).
using examples::refusal;

/**
 * What the command line asked for, validated.
 *
 * @par Thread safety
 * A value type.
 */
struct options : replication_options {
  /// The port on 127.0.0.1; 0 for any free one.
  std::uint16_t port = 9464;
  /// Print the usage text and exit.
  bool help = false;
};

namespace detail {

// The command line as text, before its values are checked: CLI11 reads into these.
struct arguments {
  command_line cli{"replicant-prometheus",
                   "Streams PostgreSQL publications through a replication pipeline whose sink only counts, and\n"
                   "serves the pipeline's telemetry as Prometheus metrics on http://127.0.0.1:PORT/metrics.",
                   "The sink keeps no data, so every start goes forward from the slot's acknowledged position. After\n"
                   "a halt the metrics are still served (replicant_up 0, replicant_halts_total by reason) until\n"
                   "Ctrl-C (SIGINT) or SIGTERM. Exit status: 0 when stopped, 1 after a halt or a failure, 2 when\n"
                   "refused to start. See docs/prometheus.md."};
  replication_arguments replication{cli, {.create_slot_help = "create the slot if it does not exist"}};
  std::string port = "9464";

  arguments() { cli.text("--port", port, "N", "9464", "the port on 127.0.0.1 to serve on; 0 picks a free one"); }
  arguments(const arguments&) = delete;
  auto operator=(const arguments&) -> arguments& = delete;
};

// The values @p a read, checked, into @p o: parse_options() after the syntax and `--help`.
// @throws std::bad_alloc only.
inline auto check(const arguments& a, options& o) -> std::optional<refusal> {
  o.dsn = "fallback_application_name=replicant-prometheus";
  if (auto bad = a.replication.check(o)) return bad->to_refusal();
  const auto port = parse_unsigned(a.port, 0, 65535);
  if (!port) return refusal{"--port is 0 to 65535"};
  o.port = static_cast<std::uint16_t>(*port);
  return std::nullopt;
}

}  // namespace detail

/// The `--help` text: every option with its default. @throws std::bad_alloc only.
[[nodiscard]] inline auto usage() -> std::string { return usage_of<detail::arguments>(); }

/**
 * Parses and validates @p args (the arguments after the program name). Options take their value
 * as the next argument or after `=`.
 * @return the options, or a @ref refusal.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto parse_options(std::span<const char* const> args) -> std::variant<options, refusal> {
  return parse_command_line<options, detail::arguments>(args, detail::check);
}

/**
 * The replication pipeline's options for @p o. The sink stores nothing, so there is never a
 * checkpoint to resume from at start: it always goes forward from the slot's acknowledged position
 * (a new slot: the current end of WAL).
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto pipeline_options_for(const options& o) -> pipeline_options {
  pipeline_options p = pipeline_options_for_replication(o);
  p.start = start::go_forward{};
  return p;
}

}  // namespace replicant::examples::prometheus

#endif  // REPLICANT_EXAMPLES_PROMETHEUS_OPTIONS_HPP
