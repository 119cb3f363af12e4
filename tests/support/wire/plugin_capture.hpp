// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_WIRE_PLUGIN_CAPTURE_HPP
#define REPLICANT_TESTS_SUPPORT_WIRE_PLUGIN_CAPTURE_HPP

/// @file
/// Reading and writing captures of the third-party output plugins (`wal2json`, `pglogical_output`):
/// the CopyData payloads a real walsender sent, kept raw, plus the catalog rows a pipeline would
/// have read at connect, for the translating decoders' golden tests and fuzz seeds.
///
/// The format (described in tests/data/wal2json/README.md) follows the pgoutput captures of
/// capture_file.hpp, whose header is pgoutput-specific (it derives the protocol from the options):
///
/// ```
/// replicant-plugin-capture 1
/// plugin: wal2json
/// scenario: plugins
/// server_version_num: 150020
/// options: "format-version" '2', ...
/// end_lsn: 0/1A2B3C8
/// catalog: 16384<TAB>public<TAB>docs<TAB>d<TAB>id<TAB>23<TAB>-1<TAB>t      <- zero or more, in order
/// records: 57
///                                        <- an empty line ends the header
/// [u32 big-endian length][payload] ...   <- one per CopyData message, 'w' and 'k', as received
/// ```
///
/// Header-only, standard library and replicant only.

#include "support/wire/capture_file.hpp"

#include <replicant/core/lsn.hpp>
#include <replicant/decoder/catalog.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace replicant::test {

/// The first line of every plugin capture file; the number is the format version.
inline constexpr std::string_view plugin_capture_magic = "replicant-plugin-capture 1";

/**
 * A capture of a third-party plugin's stream.
 *
 * @par Thread safety
 * A value type.
 */
struct plugin_capture {
  /// The output plugin, e.g. `"wal2json"` or `"pglogical_output"`.
  std::string plugin{};
  /// The scenario the recording ran.
  std::string scenario{};
  /// `server_version_num` of the recording server.
  int server_version_num = 0;
  /// The option list given to `START_REPLICATION ... LOGICAL x/x (<options>)`, as sent.
  std::string options{};
  /// The WAL position the recording ran until.
  lsn end_lsn{};
  /// Rows of relation_catalog's query, as text, taken right after the workload.
  std::vector<std::array<std::string, relation_catalog::query_columns>> catalog_rows{};
  /// The CopyData payloads in the order they were received: XLogData ('w') and keepalives ('k').
  std::vector<std::vector<std::byte>> records{};

  /// The catalog the rows describe. @throws capture_format_error for rows it refuses.
  [[nodiscard]] auto catalog() const -> relation_catalog {
    relation_catalog out;
    for (const auto& catalog_row : catalog_rows) {
      std::array<std::string_view, relation_catalog::query_columns> views{};
      for (std::size_t i = 0; i < catalog_row.size(); ++i) views[i] = catalog_row[i];
      if (!out.add_row(views)) throw capture_format_error{"plugin capture: a catalog row is refused"};
    }
    return out;
  }
};

/**
 * The bytes of a plugin capture file for @p c.
 * @throws capture_format_error when a header field holds a line break (or a catalog field a tab).
 */
[[nodiscard]] inline auto serialize_plugin_capture(const plugin_capture& c) -> std::string {
  for (const std::string* field : {&c.plugin, &c.scenario, &c.options}) {
    if (field->find('\n') != std::string::npos) throw capture_format_error{"plugin capture: line break in a field"};
  }
  std::string out;
  out += plugin_capture_magic;
  out += "\nplugin: " + c.plugin;
  out += "\nscenario: " + c.scenario;
  out += "\nserver_version_num: " + std::to_string(c.server_version_num);
  out += "\noptions: " + c.options;
  out += "\nend_lsn: " + to_string(c.end_lsn);
  for (const auto& catalog_row : c.catalog_rows) {
    out += "\ncatalog: ";
    for (std::size_t i = 0; i < catalog_row.size(); ++i) {
      if (catalog_row[i].find_first_of("\t\n") != std::string::npos)
        throw capture_format_error{"plugin capture: bad catalog"};
      if (i != 0) out += '\t';
      out += catalog_row[i];
    }
  }
  out += "\nrecords: " + std::to_string(c.records.size());
  out += "\n\n";
  detail::append_records(out, c.records, "plugin capture");
  return out;
}

/**
 * Parses the bytes of a plugin capture file.
 * @throws capture_format_error for anything that is not a complete, consistent capture.
 */
[[nodiscard]] inline auto parse_plugin_capture(std::span<const std::byte> file) -> plugin_capture {
  const auto split = detail::split_header(file, plugin_capture_magic, "plugin capture");

  plugin_capture out;
  bool has_plugin = false;
  bool has_scenario = false;
  bool has_version = false;
  bool has_options = false;
  bool has_end = false;
  std::optional<std::uint64_t> count;
  for (const auto& [key, value] : split.fields) {
    if (key == "plugin") {
      out.plugin = std::string{value};
      has_plugin = true;
    } else if (key == "scenario") {
      out.scenario = std::string{value};
      has_scenario = true;
    } else if (key == "server_version_num") {
      out.server_version_num = static_cast<int>(detail::parse_u64(value, "server_version_num"));
      has_version = true;
    } else if (key == "options") {
      out.options = std::string{value};
      has_options = true;
    } else if (key == "end_lsn") {
      const auto end = parse_lsn(value);
      if (!end) throw capture_format_error{"plugin capture: bad end_lsn"};
      out.end_lsn = *end;
      has_end = true;
    } else if (key == "catalog") {
      std::array<std::string, relation_catalog::query_columns> fields{};
      std::string_view rest = value;
      for (std::size_t i = 0; i < fields.size(); ++i) {
        const auto tab = rest.find('\t');
        if ((tab == std::string_view::npos) != (i + 1 == fields.size())) {
          throw capture_format_error{"plugin capture: catalog row of the wrong width"};
        }
        fields[i] = std::string{rest.substr(0, tab)};
        rest.remove_prefix(tab == std::string_view::npos ? rest.size() : tab + 1);
      }
      out.catalog_rows.push_back(std::move(fields));
    } else if (key == "records") {
      count = detail::parse_u64(value, "records");
    } else {
      throw capture_format_error{"plugin capture: unknown header field"};
    }
  }
  if (!has_plugin || !has_scenario || !has_version || !has_options || !has_end || !count) {
    throw capture_format_error{"plugin capture: header lacks a field"};
  }
  out.records = detail::parse_records(split.body, *count, "plugin capture");
  return out;
}

/**
 * Reads the plugin capture file at @p path.
 * @throws capture_format_error when it cannot be read or parsed.
 */
[[nodiscard]] inline auto read_plugin_capture(const std::filesystem::path& path) -> plugin_capture {
  const std::string text = detail::read_whole_file(path, "plugin capture");
  return parse_plugin_capture(std::as_bytes(std::span{text.data(), text.size()}));
}

/**
 * Writes @p c to @p path through a temporary file renamed into place.
 * @throws capture_format_error, std::filesystem::filesystem_error or std::runtime_error.
 */
inline auto write_plugin_capture(const std::filesystem::path& path, const plugin_capture& c) -> void {
  detail::write_file_atomically(path, serialize_plugin_capture(c), "plugin capture");
}

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_WIRE_PLUGIN_CAPTURE_HPP
