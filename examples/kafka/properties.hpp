// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_KAFKA_PROPERTIES_HPP
#define REPLICANT_EXAMPLES_KAFKA_PROPERTIES_HPP

/// @file
/// librdkafka properties given on replicant-kafka's command line (`-X name=value`, as kcat takes
/// them) or in a properties file (`name=value` lines, `#` comments): what a real cluster asks for
/// (`security.protocol`, `sasl.*`, `ssl.*`, ...) passes through to the producer and to the
/// checkpoint reader. A property's value may be a password, and a wrongly written line may be one
/// whole: every refusal names where the property was given (`-X number 2`, `--properties-file
/// line 7`), never its name or its value.

#include "../common/cli.hpp"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace replicant::examples::kafka {

/**
 * One librdkafka configuration property, and where it was given.
 *
 * @par Thread safety
 * A value type.
 */
struct property {
  /// The property's name, e.g. `sasl.username`.
  std::string name;
  /// Its value (never printed).
  std::string value;
  /// Where it was given, value-free: `-X number 2` or `--properties-file line 7`.
  std::string origin;
};

/**
 * The properties the sink sets itself, because exactly-once depends on them (or an option of the
 * program sets them): given with `-X` or in the file, they are refused rather than silently
 * overridden either way.
 */
inline constexpr std::array<std::pair<std::string_view, std::string_view>, 10> reserved_properties{{
    {"bootstrap.servers", "--brokers"},
    {"transactional.id", "--transactional-id"},
    {"transaction.timeout.ms", "--transaction-timeout-ms"},
    {"message.timeout.ms", "--request-timeout-ms"},
    {"enable.idempotence", "the program (always true)"},
    {"partitioner", "the program (murmur2_random, the Java client's)"},
    {"isolation.level", "the program (read_committed for the checkpoint)"},
    {"group.id", "the program (for the checkpoint reader)"},
    {"enable.auto.commit", "the program (for the checkpoint reader)"},
    {"enable.partition.eof", "the program (for the checkpoint reader)"},
}};

namespace detail {

[[nodiscard]] inline auto trimmed(std::string_view s) noexcept -> std::string_view {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace detail

/**
 * @p text, `name=value`, as a property given at @p origin. Blanks around the name are dropped;
 * the value is kept as written (a password may end in a blank).
 * @return the property, or a refusal naming @p origin only: no `=`, an empty name, or a name the
 * program sets itself (reserved_properties, named with the option to use instead).
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto parse_property(std::string_view text, std::string origin) -> std::variant<property, refusal> {
  const auto eq = text.find('=');
  const auto name = eq == std::string_view::npos ? std::string_view{} : detail::trimmed(text.substr(0, eq));
  if (name.empty()) return refusal{origin + " is not name=value"};
  for (const auto& [reserved, instead] : reserved_properties) {
    if (name == reserved) {
      return refusal{origin + " sets " + std::string{reserved} + ", which is set by " + std::string{instead}};
    }
  }
  return property{std::string{name}, std::string{text.substr(eq + 1)}, std::move(origin)};
}

/**
 * The properties of file @p path: one `name=value` a line; blank lines and lines whose first
 * non-blank character is `#` are skipped; a line's trailing carriage return is dropped.
 * @return them in file order, or a refusal naming the option and the line, never its text.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto read_properties_file(const std::string& path)
    -> std::variant<std::vector<property>, refusal> {
  std::ifstream in{path};
  if (!in) return refusal{"--properties-file cannot be read"};
  std::vector<property> out;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto content = detail::trimmed(line);
    if (content.empty() || content.front() == '#') continue;
    auto parsed = parse_property(line, "--properties-file line " + std::to_string(number));
    if (auto* bad = std::get_if<refusal>(&parsed)) return std::move(*bad);
    out.push_back(std::get<property>(std::move(parsed)));
  }
  if (in.bad()) return refusal{"--properties-file cannot be read"};
  return out;
}

/**
 * Sets every property of @p properties on @p conf, in order (a later one wins).
 * @return the first property librdkafka refused (an unknown name, or a value it cannot take), or
 * nothing. librdkafka's own message, which may quote the value, is dropped.
 * Never throws.
 */
[[nodiscard]] inline auto set_properties(rd_kafka_conf_t* conf, const std::vector<property>& properties) noexcept
    -> const property* {
  char ignored[512];
  for (const auto& p : properties) {
    if (rd_kafka_conf_set(conf, p.name.c_str(), p.value.c_str(), ignored, sizeof ignored) != RD_KAFKA_CONF_OK) {
      return &p;
    }
  }
  return nullptr;
}

/**
 * Checks @p properties against librdkafka before anything connects, on a configuration of their
 * own. @return a refusal naming the first property librdkafka does not take, by its origin, or
 * nothing. @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto check_properties(const std::vector<property>& properties) -> std::optional<refusal> {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  const property* bad = set_properties(conf, properties);
  rd_kafka_conf_destroy(conf);
  if (bad == nullptr) return std::nullopt;
  return refusal{bad->origin + " is not a property librdkafka takes (an unknown name, or a value it refuses)"};
}

}  // namespace replicant::examples::kafka

#endif  // REPLICANT_EXAMPLES_KAFKA_PROPERTIES_HPP
