// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_WIRE_CAPTURE_FILE_HPP
#define REPLICANT_TESTS_SUPPORT_WIRE_CAPTURE_FILE_HPP

/// @file
/// Reading and writing pgoutput capture files: the CopyData payloads a real walsender sent, kept
/// raw, for the golden tests, the fuzzers' seed corpora and the benchmarks.
///
/// The format (also described in tests/data/pgoutput/README.md) is a text header followed by
/// binary records:
///
/// ```
/// replicant-pgoutput-capture 1
/// scenario: types
/// server_version_num: 180004
/// options: proto_version '4', publication_names '"captures"'
/// proto_version: 4
/// streaming: off
/// binary: false
/// messages: false
/// two_phase: false
/// end_lsn: 0/1A2B3C8
/// records: 57
///                                        <- an empty line ends the header
/// [u32 big-endian length][payload] ...   <- one per CopyData message, 'w' and 'k', as received
/// ```
///
/// The five negotiated fields are derived from `options` when a file is written and checked against
/// it when one is read, so a header cannot claim a protocol the recording did not use.
/// Header-only, standard library and replicant only, so any test or tool can include it.

#include <replicant/core/detail/byte_reader.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/decoder/pgoutput.hpp>

#include <algorithm>
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
#include <utility>
#include <vector>

namespace replicant::test {

/// The first line of every capture file; the number is the format version.
inline constexpr std::string_view capture_magic = "replicant-pgoutput-capture 1";

/// The file name extension of capture files.
inline constexpr std::string_view capture_extension = ".capture";

/**
 * A capture file that cannot be read: bad magic, a missing or inconsistent header field, a
 * truncated record. The message names the problem, never record bytes.
 */
class capture_format_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/**
 * What a capture was recorded from and with.
 *
 * @par Thread safety
 * A value type.
 */
struct capture_header {
  /// The scenario the recording ran, e.g. `"types"` (the golden tests key their checks on it).
  std::string scenario{};
  /// `server_version_num` of the recording server, e.g. 180004.
  int server_version_num = 0;
  /// The option list given to `START_REPLICATION ... LOGICAL x/x (<options>)`, as sent.
  std::string options{};
  /// pgoutput's `proto_version`.
  std::uint32_t proto_version = 0;
  /// pgoutput's `streaming`.
  pgoutput_streaming streaming = pgoutput_streaming::off;
  /// pgoutput's `binary`.
  bool binary = false;
  /// pgoutput's `messages`.
  bool messages = false;
  /// pgoutput's `two_phase`.
  bool two_phase = false;
  /// The WAL position the recording ran until: a keepalive at or past it ended the capture.
  lsn end_lsn{};

  /// The server's major version, e.g. 18. Never throws.
  [[nodiscard]] auto major() const noexcept -> int { return server_version_num / 10000; }

  /// What a decoder or assembler of this capture must be configured with. Never throws.
  [[nodiscard]] auto protocol() const noexcept -> pgoutput_protocol { return {proto_version, streaming}; }
};

/**
 * A whole capture: its header and its records, each one CopyData payload.
 *
 * @par Thread safety
 * A value type.
 */
struct capture {
  /// The header.
  capture_header header{};
  /// The CopyData payloads in the order they were received: XLogData ('w') and keepalives ('k').
  std::vector<std::vector<std::byte>> records{};
};

namespace detail {

[[nodiscard]] inline auto to_text(pgoutput_streaming s) -> std::string_view {
  switch (s) {
    case pgoutput_streaming::off: return "off";
    case pgoutput_streaming::on: return "on";
    case pgoutput_streaming::parallel: return "parallel";
  }
  return "off";
}

// pgoutput's boolean spellings (defGetBoolean): true/false/on/off, any case; PROTOCOL.md §2.1.
[[nodiscard]] inline auto option_bool(std::string_view name, std::string_view value) -> bool {
  std::string lower;
  std::transform(value.begin(), value.end(), std::back_inserter(lower),
                 [](char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); });
  if (lower == "true" || lower == "on") return true;
  if (lower == "false" || lower == "off") return false;
  throw capture_format_error{"capture: option " + std::string{name} + " is not a boolean"};
}

[[nodiscard]] inline auto parse_u64(std::string_view text, std::string_view what) -> std::uint64_t {
  if (text.empty() || text.size() > 19) throw capture_format_error{"capture: bad number in " + std::string{what}};
  std::uint64_t out = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') throw capture_format_error{"capture: bad number in " + std::string{what}};
    out = out * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return out;
}

// The records after a capture's header: [u32 big-endian length][payload] each, @p count of them.
// @p what names the kind of capture in the errors.
[[nodiscard]] inline auto parse_records(std::span<const std::byte> body, std::uint64_t count, std::string_view what)
    -> std::vector<std::vector<std::byte>> {
  const auto error = [&](std::string_view why) {
    return capture_format_error{std::string{what} + ": " + std::string{why}};
  };
  if (count > body.size() / 4) throw error("more records announced than present");
  std::vector<std::vector<std::byte>> records;
  records.reserve(static_cast<std::size_t>(count));
  while (!body.empty()) {
    if (body.size() < 4) throw error("truncated record length");
    const auto length = static_cast<std::size_t>(replicant::detail::load_big_endian<4>(body.data()));
    if (length > body.size() - 4) throw error("truncated record");
    const auto payload = body.subspan(4, length);
    records.emplace_back(payload.begin(), payload.end());
    body = body.subspan(4 + length);
  }
  if (records.size() != count) throw error("record count differs from the header");
  return records;
}

// Appends @p records to @p out as the body of a capture file: [u32 big-endian length][payload]
// each, the counterpart of parse_records(). @p what names the kind of capture in the errors.
inline auto append_records(std::string& out, const std::vector<std::vector<std::byte>>& records, std::string_view what)
    -> void {
  for (const auto& r : records) {
    if (r.size() > UINT32_MAX) throw capture_format_error{std::string{what} + ": record too large"};
    const auto n = static_cast<std::uint32_t>(r.size());
    for (const unsigned shift : {24U, 16U, 8U, 0U}) out += static_cast<char>((n >> shift) & 0xFFU);
    out.append(reinterpret_cast<const char*>(r.data()), r.size());
  }
}

// A capture file cut at the empty line that ends its header: the `key: value` lines after its
// magic line, in file order (a key may repeat), and the records after the header.
struct header_and_body {
  std::vector<std::pair<std::string_view, std::string_view>> fields;
  std::span<const std::byte> body;
};

// Cuts @p file as header_and_body, checking that its first line is @p magic: the part every kind of
// capture file shares, its fields being each kind's own. @p what names the kind in the errors.
// The views point into @p file.
[[nodiscard]] inline auto split_header(std::span<const std::byte> file, std::string_view magic, std::string_view what)
    -> header_and_body {
  const auto error = [&](std::string_view why) {
    return capture_format_error{std::string{what} + ": " + std::string{why}};
  };
  const std::string_view all{reinterpret_cast<const char*>(file.data()), file.size()};
  const auto header_end = all.find("\n\n");
  if (header_end == std::string_view::npos) throw error("no end of header");
  std::string_view head = all.substr(0, header_end + 1);
  const auto next_line = [&head]() -> std::string_view {
    const auto nl = head.find('\n');
    const std::string_view line = head.substr(0, nl);
    head.remove_prefix(nl + 1);
    return line;
  };
  if (next_line() != magic) throw error("not a " + std::string{what} + " file (bad magic line)");
  header_and_body out{{}, file.subspan(header_end + 2)};
  while (!head.empty()) {
    const std::string_view line = next_line();
    const auto colon = line.find(": ");
    if (colon == std::string_view::npos) throw error("header line without ': '");
    out.fields.emplace_back(line.substr(0, colon), line.substr(colon + 2));
  }
  return out;
}

// The whole file at @p path. @throws capture_format_error when it cannot be read.
[[nodiscard]] inline auto read_whole_file(const std::filesystem::path& path, std::string_view what) -> std::string {
  std::ifstream in{path, std::ios::binary};
  if (!in) throw capture_format_error{std::string{what} + ": cannot open " + path.string()};
  std::string text{std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
  if (in.bad()) throw capture_format_error{std::string{what} + ": cannot read " + path.string()};
  return text;
}

// Writes @p contents to @p path through a temporary file renamed into place, so that a reader never
// sees half a file. @throws std::filesystem::filesystem_error or std::runtime_error.
inline auto write_file_atomically(const std::filesystem::path& path, const std::string& contents, std::string_view what)
    -> void {
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out{tmp, std::ios::binary | std::ios::trunc};
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    if (!out.flush()) throw std::runtime_error{std::string{what} + ": cannot write " + tmp.string()};
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace detail

/**
 * The negotiated fields of a header, derived from a `START_REPLICATION` option list such as
 * `proto_version '4', publication_names '"p1",p2', streaming 'parallel'`: option names are bare or
 * double-quoted words, values single-quoted strings with `''` for a quote (PROTOCOL.md §1.2).
 * Options that are absent keep pgoutput's defaults (off / false).
 *
 * @return a header with `options`, `proto_version`, `streaming`, `binary`, `messages` and
 *   `two_phase` set; the other fields are left default.
 * @throws capture_format_error for a list that does not parse or lacks `proto_version`.
 */
[[nodiscard]] inline auto describe_options(std::string_view options) -> capture_header {
  capture_header out;
  out.options = std::string{options};
  bool has_proto = false;
  std::size_t i = 0;
  const auto skip_space = [&] {
    while (i < options.size() && (options[i] == ' ' || options[i] == '\t' || options[i] == '\n')) ++i;
  };
  const auto bad = [](const char* what) { return capture_format_error{std::string{"capture: options: "} + what}; };
  while (true) {
    skip_space();
    if (i == options.size()) break;
    std::string name;
    if (options[i] == '"') {
      for (++i; i < options.size() && options[i] != '"'; ++i) name += options[i];
      if (i == options.size()) throw bad("unterminated option name");
      ++i;
    } else {
      while (i < options.size() && options[i] != ' ' && options[i] != ',' && options[i] != '\'') {
        name += static_cast<char>(options[i] >= 'A' && options[i] <= 'Z' ? options[i] - 'A' + 'a' : options[i]);
        ++i;
      }
    }
    if (name.empty()) throw bad("empty option name");
    skip_space();
    std::optional<std::string> value;
    if (i < options.size() && options[i] == '\'') {
      value.emplace();
      for (++i;; ++i) {
        if (i == options.size()) throw bad("unterminated option value");
        if (options[i] == '\'') {
          if (i + 1 < options.size() && options[i + 1] == '\'') {
            *value += '\'';
            ++i;
            continue;
          }
          ++i;
          break;
        }
        *value += options[i];
      }
    }
    // A missing value means true for pgoutput's booleans, as defGetBoolean reads it.
    const std::string v = value.value_or("true");
    if (name == "proto_version") {
      out.proto_version = static_cast<std::uint32_t>(detail::parse_u64(v, "proto_version"));
      has_proto = true;
    } else if (name == "streaming") {
      if (v == "parallel" || v == "PARALLEL") {
        out.streaming = pgoutput_streaming::parallel;
      } else {
        out.streaming = detail::option_bool(name, v) ? pgoutput_streaming::on : pgoutput_streaming::off;
      }
    } else if (name == "binary") {
      out.binary = detail::option_bool(name, v);
    } else if (name == "messages") {
      out.messages = detail::option_bool(name, v);
    } else if (name == "two_phase") {
      out.two_phase = detail::option_bool(name, v);
    }
    skip_space();
    if (i == options.size()) break;
    if (options[i] != ',') throw bad("expected ',' between options");
    ++i;
  }
  if (!has_proto) throw bad("no proto_version");
  return out;
}

/**
 * The bytes of a capture file for @p c.
 * @throws capture_format_error when the header's negotiated fields disagree with its options, or
 *   a header text field holds a line break; std::bad_alloc.
 */
[[nodiscard]] inline auto serialize_capture(const capture& c) -> std::string {
  const capture_header derived = describe_options(c.header.options);
  if (derived.protocol().version != c.header.proto_version || derived.streaming != c.header.streaming ||
      derived.binary != c.header.binary || derived.messages != c.header.messages ||
      derived.two_phase != c.header.two_phase) {
    throw capture_format_error{"capture: header fields disagree with its options"};
  }
  for (const std::string* field : {&c.header.scenario, &c.header.options}) {
    if (field->find('\n') != std::string::npos) throw capture_format_error{"capture: header field with a line break"};
  }
  const auto yes_no = [](bool b) { return b ? "true" : "false"; };
  std::string out;
  out += capture_magic;
  out += "\nscenario: " + c.header.scenario;
  out += "\nserver_version_num: " + std::to_string(c.header.server_version_num);
  out += "\noptions: " + c.header.options;
  out += "\nproto_version: " + std::to_string(c.header.proto_version);
  out += "\nstreaming: " + std::string{detail::to_text(c.header.streaming)};
  out += std::string{"\nbinary: "} + yes_no(c.header.binary);
  out += std::string{"\nmessages: "} + yes_no(c.header.messages);
  out += std::string{"\ntwo_phase: "} + yes_no(c.header.two_phase);
  out += "\nend_lsn: " + to_string(c.header.end_lsn);
  out += "\nrecords: " + std::to_string(c.records.size());
  out += "\n\n";
  detail::append_records(out, c.records, "capture");
  return out;
}

/**
 * Parses the bytes of a capture file.
 * @throws capture_format_error for anything that is not a complete, consistent capture;
 *   std::bad_alloc.
 */
[[nodiscard]] inline auto parse_capture(std::span<const std::byte> file) -> capture {
  const auto split = detail::split_header(file, capture_magic, "capture");
  const auto field = [&split](std::string_view key) -> std::string_view {
    for (const auto& [k, v] : split.fields) {
      if (k == key) return v;
    }
    throw capture_format_error{"capture: header lacks " + std::string{key}};
  };

  capture out;
  out.header = describe_options(field("options"));
  out.header.scenario = std::string{field("scenario")};
  out.header.server_version_num =
      static_cast<int>(detail::parse_u64(field("server_version_num"), "server_version_num"));
  const auto end = parse_lsn(field("end_lsn"));
  if (!end) throw capture_format_error{"capture: bad end_lsn"};
  out.header.end_lsn = *end;
  // The negotiated fields are written for people reading the file; the options are the truth.
  const auto yes_no = [](bool b) { return b ? std::string_view{"true"} : std::string_view{"false"}; };
  if (field("proto_version") != std::to_string(out.header.proto_version) ||
      field("streaming") != detail::to_text(out.header.streaming) || field("binary") != yes_no(out.header.binary) ||
      field("messages") != yes_no(out.header.messages) || field("two_phase") != yes_no(out.header.two_phase)) {
    throw capture_format_error{"capture: header fields disagree with its options"};
  }
  const std::uint64_t count = detail::parse_u64(field("records"), "records");

  out.records = detail::parse_records(split.body, count, "capture");
  return out;
}

/**
 * Reads the capture file at @p path.
 * @throws capture_format_error when it cannot be read or parsed.
 */
[[nodiscard]] inline auto read_capture(const std::filesystem::path& path) -> capture {
  const std::string text = detail::read_whole_file(path, "capture");
  return parse_capture(std::as_bytes(std::span{text.data(), text.size()}));
}

/**
 * Writes @p c to @p path, through a temporary file renamed into place so that a reader never sees
 * half a capture.
 * @throws capture_format_error (see serialize_capture), std::filesystem::filesystem_error or
 *   std::runtime_error when the file cannot be written.
 */
inline auto write_capture(const std::filesystem::path& path, const capture& c) -> void {
  detail::write_file_atomically(path, serialize_capture(c), "capture");
}

/**
 * Every `*.capture` file directly in @p directory, sorted by name (empty if there is none).
 * @throws std::filesystem::filesystem_error when the directory cannot be listed.
 */
[[nodiscard]] inline auto list_captures(const std::filesystem::path& directory) -> std::vector<std::filesystem::path> {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator{directory}) {
    if (entry.is_regular_file() && entry.path().extension() == capture_extension) out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_WIRE_CAPTURE_FILE_HPP
