// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_PROMETHEUS_OPTIONS_HPP
#define REPLICANT_EXAMPLES_PROMETHEUS_OPTIONS_HPP

/// @file
/// replicant-prometheus's command line: parsing and validation, before anything listens or
/// connects. A refusal names the option, never the value given.

#include "../common/cli.hpp"

#include <replicant/core/identifier.hpp>
#include <replicant/pipeline/options.hpp>

#include <algorithm>
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

/// The usage text printed by `--help`.
inline constexpr std::string_view usage_text =
    R"(Usage: replicant-prometheus --slot NAME --publication NAME [options]

Streams PostgreSQL publications through a replication pipeline whose sink only counts, and
serves the pipeline's telemetry as Prometheus metrics on http://127.0.0.1:PORT/metrics.

Options:
  --dsn CONNINFO         libpq connection string or URI (default: the PG* environment variables)
  --slot NAME            logical replication slot ([a-z0-9_], at most 63 bytes)
  --publication NAME     publication to stream (repeatable; at least one)
  --create-slot          create the slot if it does not exist
  --port N               the port on 127.0.0.1 to serve on; 0 picks a free one (default: 9464)
  --status-interval SECS seconds between status updates to the server (default: 10)
  -h, --help             print this help and exit

The sink keeps no data, so every start goes forward from the slot's acknowledged position. After
a halt the metrics are still served (replicant_up 0, replicant_halts_total by reason) until
Ctrl-C (SIGINT) or SIGTERM. Exit status: 0 when stopped, 1 after a halt or a failure, 2 when
refused to start. See docs/prometheus.md.
)";

/**
 * What the command line asked for, validated.
 *
 * @par Thread safety
 * A value type.
 */
struct options : slot_options {
  /// The port on 127.0.0.1; 0 for any free one.
  std::uint16_t port = 9464;
  /// Print the usage text and exit.
  bool help = false;
};

/**
 * Parses and validates @p args (the arguments after the program name). Options take their value
 * as the next argument or after `=`.
 * @return the options, or a @ref refusal.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto parse_options(std::span<const char* const> args) -> std::variant<options, refusal> {
  options o;
  o.dsn = "fallback_application_name=replicant-prometheus";
  argument_reader reader{args};
  while (reader.next()) {
    const std::string_view name = reader.name();
    if (const auto read = read_slot_option(reader, o); read.matched) {
      if (read.refused) return *read.refused;
    } else if (name == "-h" || name == "--help") {
      if (reader.has_inline_value()) return refusal{"--help takes no value"};
      o.help = true;
    } else if (name == "--port") {
      const auto v = reader.take_value();
      const auto n = v ? parse_unsigned(*v, 0, 65535) : std::nullopt;
      if (!n) return refusal{"--port is 0 to 65535"};
      o.port = static_cast<std::uint16_t>(*n);
    } else {
      return refusal{"unknown option " + printable_option_name(reader.argument()) + " (see --help)"};
    }
  }
  if (o.help) return o;
  if (auto missing = missing_slot_option(o)) return *missing;
  return o;
}

/**
 * The replication pipeline's options for @p o. The sink stores nothing, so there is never a
 * checkpoint to resume from at start: it always goes forward from the slot's acknowledged position
 * (a new slot: the current end of WAL).
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto pipeline_options_for(const options& o) -> pipeline_options {
  pipeline_options p = pipeline_options_for_slot(o);
  p.start = start::go_forward{};
  return p;
}

}  // namespace replicant::examples::prometheus

#endif  // REPLICANT_EXAMPLES_PROMETHEUS_OPTIONS_HPP
