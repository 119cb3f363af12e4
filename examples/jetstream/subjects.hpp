// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_JETSTREAM_SUBJECTS_HPP
#define REPLICANT_EXAMPLES_JETSTREAM_SUBJECTS_HPP

/// @file
/// Where replicant-jetstream publishes, and under which ids: the subject of a table's changes
/// (`<prefix>.<schema>.<table>`), the subject of the commit markers (`<prefix>.commit`), and the
/// deterministic message id of each message (`<commit LSN>:<index>`). Pure functions, no I/O.

#include <replicant/core/lsn.hpp>

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace replicant::examples::jetstream {

/**
 * Appends @p name as one NATS subject token. A token may not hold `.` (the separator), spaces or
 * control characters, and a token that is exactly `*` or `>` is a wildcard; PostgreSQL names may
 * hold any of them (`"Mixed Case"`, `"a.b"`). So every byte outside `A-Z a-z 0-9 _ -` is written
 * as `%XX` (upper-case hex), `%` included, which keeps the mapping one-to-one: two tables never
 * share a subject. An empty name (never sent by PostgreSQL) becomes `%`.
 * @throws std::bad_alloc only.
 */
inline auto append_subject_token(std::string& out, std::string_view name) -> void {
  static constexpr char hex[] = "0123456789ABCDEF";
  if (name.empty()) {
    out.push_back('%');
    return;
  }
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    const bool plain =
        (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '_' || u == '-';
    if (plain) {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(hex[u >> 4U]);
      out.push_back(hex[u & 0xFU]);
    }
  }
}

/// The subject of the changes of table @p schema.@p table: `<prefix>.<schema>.<table>`, each name
/// encoded by append_subject_token(). @throws std::bad_alloc only.
[[nodiscard]] inline auto change_subject(std::string_view prefix, std::string_view schema, std::string_view table)
    -> std::string {
  std::string out{prefix};
  out.push_back('.');
  append_subject_token(out, schema);
  out.push_back('.');
  append_subject_token(out, table);
  return out;
}

/// The subject of the commit markers: `<prefix>.commit`. One token after the prefix, so it can
/// never be a table's subject (those have two). @throws std::bad_alloc only.
[[nodiscard]] inline auto marker_subject(std::string_view prefix) -> std::string {
  return std::string{prefix} + ".commit";
}

/**
 * Whether @p prefix may prefix the subjects: one or more tokens of `A-Z a-z 0-9 _ -`, separated by
 * single dots. Never throws.
 */
[[nodiscard]] constexpr auto valid_prefix(std::string_view prefix) noexcept -> bool {
  if (prefix.empty() || prefix.size() > 128 || prefix.front() == '.' || prefix.back() == '.') return false;
  char previous = '.';
  for (const char c : prefix) {
    const bool plain =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!plain && !(c == '.' && previous != '.')) return false;
    previous = c;
  }
  return true;
}

/**
 * The id of a message (`Nats-Msg-Id`): the transaction's commit LSN and the message's index in it,
 * `0/16B3748:3`. A transaction of n changes has the messages 0 to n-1, one per change in order,
 * and its commit marker is message n. The same transaction always gives the same ids, so a
 * message published again is recognised (JetStream drops a repeated id within the stream's
 * duplicate window, and a reader can skip it after that).
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto message_id(lsn commit, std::uint64_t index) -> std::string {
  return to_string(commit) + ':' + std::to_string(index);
}

/// A message id taken apart.
struct parsed_message_id {
  /// The commit LSN of the message's transaction.
  lsn commit;
  /// The message's index in the transaction (the commit marker's is the number of changes).
  std::uint64_t index = 0;
};

/// @p id (see message_id()) taken apart, or nothing when it is not of that form. Never throws.
[[nodiscard]] inline auto parse_message_id(std::string_view id) noexcept -> std::optional<parsed_message_id> {
  const auto colon = id.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  auto commit = parse_lsn(id.substr(0, colon));
  if (!commit) return std::nullopt;
  const auto digits = id.substr(colon + 1);
  std::uint64_t index = 0;
  const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (digits.empty() || r.ec != std::errc{} || r.ptr != digits.data() + digits.size()) return std::nullopt;
  return parsed_message_id{*commit, index};
}

}  // namespace replicant::examples::jetstream

#endif  // REPLICANT_EXAMPLES_JETSTREAM_SUBJECTS_HPP
