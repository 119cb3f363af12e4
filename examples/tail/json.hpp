// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_TAIL_JSON_HPP
#define REPLICANT_EXAMPLES_TAIL_JSON_HPP

/// @file
/// JSON rendering for replicant-tail: one JSON object per change of a committed transaction (the
/// "JSON lines" format, docs/tail.md). Pure functions over replicant's transaction model, with no
/// I/O: the sink (jsonl_sink.hpp) does the writing.
///
/// Written by hand on purpose, after measuring the alternative (benchmarks/tail_json,
/// docs/performance.md): the same lines through nlohmann/json take 3.6 times the CPU per line, 4.4
/// with a jsonb column (a document per line to build, and the server's jsonb text to parse), and would
/// change the output: raw DEL, C1 controls and U+2028, `3.0` for an integral float8, and jsonb
/// re-serialized, with numbers beyond a double rounded. {fmt} has no JSON escaping to offer.
///
/// Every string that reaches the output (values, column and table names, message prefixes) goes
/// through append_json_string(), which escapes what JSON requires, also escapes what a terminal
/// would interpret (C0 and C1 controls, DEL), and replaces bytes that are not well-formed UTF-8 with
/// U+FFFD, so a line is always valid UTF-8 JSON and a single line, whatever the data.

#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/core/utf8.hpp>
#include <replicant/model/change.hpp>
#include <replicant/model/transaction.hpp>
#include <replicant/model/value.hpp>
#include <replicant/wire/framing.hpp>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

namespace replicant::examples::tail {

namespace detail {

inline constexpr char hex_lower[] = "0123456789abcdef";

// Appends the \u escape of a code point below U+10000.
inline auto append_u_escape(std::string& out, std::uint32_t code_point) -> void {
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4)
    out.push_back(hex_lower[(code_point >> static_cast<unsigned>(shift)) & 0xFU]);
}

// Shared with the library's identifier checks: the same notion of well-formed UTF-8.
using replicant::utf8_sequence_length;

// The code point of the two-byte sequence at s[i] (only called for a well-formed one).
[[nodiscard]] constexpr auto two_byte_code_point(std::string_view s, std::size_t i) noexcept -> std::uint32_t {
  return ((static_cast<std::uint32_t>(static_cast<unsigned char>(s[i])) & 0x1FU) << 6U) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(s[i + 1])) & 0x3FU);
}

// Whether the three-byte sequence at s[i] is U+2028 or U+2029: valid in JSON, but line breaks to
// JavaScript and to some line-oriented tools, so they are escaped too.
[[nodiscard]] constexpr auto is_unicode_line_break(std::string_view s, std::size_t i) noexcept -> bool {
  return static_cast<unsigned char>(s[i]) == 0xE2U && static_cast<unsigned char>(s[i + 1]) == 0x80U &&
         (static_cast<unsigned char>(s[i + 2]) == 0xA8U || static_cast<unsigned char>(s[i + 2]) == 0xA9U);
}

// Appends one ASCII character of a string body, escaped when JSON or a terminal needs it.
inline auto append_ascii(std::string& out, char c) -> void {
  switch (c) {
    case '"': out += "\\\""; return;
    case '\\': out += "\\\\"; return;
    case '\b': out += "\\b"; return;
    case '\f': out += "\\f"; return;
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    default: break;
  }
  const auto u = static_cast<unsigned char>(c);
  if (u < 0x20U || u == 0x7FU) {
    append_u_escape(out, u);
  } else {
    out.push_back(c);
  }
}

// "YYYY" for years 0 to 9999; otherwise the ISO 8601 expanded form with a sign and at least four
// digits ("-0043" is 44 BC in astronomical numbering, "+10000").
inline auto append_year(std::string& out, std::int64_t year) -> void {
  if (year < 0 || year > 9999) out.push_back(year < 0 ? '-' : '+');
  const std::uint64_t magnitude =
      year < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(year) : static_cast<std::uint64_t>(year);
  char digits[24];
  const auto r = std::to_chars(digits, digits + sizeof digits, magnitude);
  for (auto n = r.ptr - digits; n < 4; ++n) out.push_back('0');
  out.append(digits, r.ptr);
}

inline auto append_two_digits(std::string& out, unsigned v) -> void {
  out.push_back(static_cast<char>('0' + v / 10 % 10));
  out.push_back(static_cast<char>('0' + v % 10));
}

// ".ffffff" without trailing zeros, or nothing for a whole second.
inline auto append_fraction(std::string& out, int micros) -> void {
  if (micros == 0) return;
  char frac[7] = {'.', '0', '0', '0', '0', '0', '0'};
  for (int i = 6, v = micros; i >= 1; --i, v /= 10) frac[i] = static_cast<char>('0' + v % 10);
  std::size_t len = 7;
  while (frac[len - 1] == '0') --len;
  out.append(frac, len);
}

}  // namespace detail

/**
 * Appends @p s as a JSON string, quotes included.
 *
 * Escapes `"` and `\`, every control character (C0, DEL, and the C1 range U+0080 to U+009F, which
 * some terminals execute), and U+2028/U+2029. A byte that does not start a well-formed UTF-8
 * sequence becomes U+FFFD (the server sends UTF-8, since replicant pins `client_encoding`, so this
 * only happens with a `SQL_ASCII` database or a binary logical-message content).
 *
 * @throws std::bad_alloc only.
 * @par Example
 * @code
 * std::string out;
 * append_json_string(out, "tab\there");  // "tab\there", with the tab escaped
 * @endcode
 */
inline auto append_json_string(std::string& out, std::string_view s) -> void {
  out.push_back('"');
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = detail::utf8_sequence_length(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      ++i;
    } else if (n == 1) {
      detail::append_ascii(out, s[i]);
      ++i;
    } else if ((n == 2 && detail::two_byte_code_point(s, i) < 0xA0U) ||
               (n == 3 && detail::is_unicode_line_break(s, i))) {
      const std::uint32_t cp = n == 2 ? detail::two_byte_code_point(s, i)
                                      : (static_cast<unsigned char>(s[i + 2]) == 0xA8U ? 0x2028U : 0x2029U);
      detail::append_u_escape(out, cp);
      i += n;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  out.push_back('"');
}

/// Whether @p s is entirely well-formed UTF-8. Never throws.
[[nodiscard]] constexpr auto is_valid_utf8(std::string_view s) noexcept -> bool {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = detail::utf8_sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

/// Appends @p at as a JSON string in PostgreSQL's form, e.g. `"16/B374D848"`. @throws std::bad_alloc
inline auto append_json_lsn(std::string& out, lsn at) -> void {
  out.push_back('"');
  out += to_string(at);
  out.push_back('"');
}

/**
 * Appends a date as ISO 8601 (`2024-05-01`; years outside 0..9999 in the expanded form with a sign,
 * astronomical numbering, so 44 BC is `-0043`), or `infinity` / `-infinity`, without quotes.
 * @throws std::bad_alloc only.
 */
inline auto append_iso_date(std::string& out, date d) -> void {
  if (!d.is_finite()) {
    out += d == date::infinity() ? "infinity" : "-infinity";
    return;
  }
  detail::append_year(out, d.year());
  out.push_back('-');
  detail::append_two_digits(out, d.month());
  out.push_back('-');
  detail::append_two_digits(out, d.day());
}

/// Appends a time of day as ISO 8601 `HH:MM:SS[.ffffff]` (trailing fraction zeros dropped; PostgreSQL's
/// `24:00:00` stays as it is, which ISO 8601 also allows), without quotes. @throws std::bad_alloc
inline auto append_iso_time(std::string& out, time_of_day t) -> void {
  detail::append_two_digits(out, static_cast<unsigned>(t.hour()));
  out.push_back(':');
  detail::append_two_digits(out, static_cast<unsigned>(t.minute()));
  out.push_back(':');
  detail::append_two_digits(out, static_cast<unsigned>(t.second()));
  detail::append_fraction(out, t.microsecond());
}

/**
 * Appends a timestamp as ISO 8601 without quotes: `2024-05-01T12:00:00.25` for `timestamp`, with a
 * trailing `Z` for `timestamptz` (an instant, always shown in UTC); `infinity` / `-infinity`.
 * @throws std::bad_alloc only.
 */
template <bool WithTimeZone>
auto append_iso_timestamp(std::string& out, basic_timestamp<WithTimeZone> t) -> void {
  if (!t.is_finite()) {
    out += t == basic_timestamp<WithTimeZone>::infinity() ? "infinity" : "-infinity";
    return;
  }
  append_iso_date(out, t.date_part());
  out.push_back('T');
  append_iso_time(out, t.time_part());
  if constexpr (WithTimeZone) out.push_back('Z');
}

/**
 * Appends @p v as JSON:
 *
 * | value | JSON |
 * |---|---|
 * | NULL | `null` |
 * | bool | `true` / `false` |
 * | integers | a number |
 * | float4/float8 | a number (shortest exact form) when finite; `"NaN"`, `"Infinity"`, `"-Infinity"` |
 * | numeric (and money read as a decimal) | a string of its exact digits, e.g. `"12.50"` |
 * | text, uuid, interval, timetz, other types | a string |
 * | bytea | a string in PostgreSQL's hex form, `"\\x0a0b"` |
 * | date, time, timestamp, timestamptz | an ISO 8601 string (see the append_iso_* functions) |
 * | json, jsonb | the document itself, embedded (line breaks between tokens become spaces) |
 * | arrays | a JSON array, nested per dimension (the lower bound is not shown) |
 *
 * @throws std::bad_alloc only.
 */
inline auto append_json_value(std::string& out, const value& v) -> void;

namespace detail {

inline auto append_json_double(std::string& out, double d) -> void {
  if (std::isnan(d)) {
    out += "\"NaN\"";
  } else if (std::isinf(d)) {
    out += d < 0 ? "\"-Infinity\"" : "\"Infinity\"";
  } else {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, d);  // shortest text that reads back exactly
    out.append(buf, r.ptr);
  }
}

// A json/jsonb document as PostgreSQL printed it. `json` keeps the input's whitespace, and a line
// break can only sit between tokens (the server rejects raw control characters inside strings),
// so turning CR and LF into spaces keeps the document and the one-line-per-change format. An
// empty text (never sent by PostgreSQL) would not be JSON at all, so it becomes null.
inline auto append_embedded_json(std::string& out, std::string_view doc) -> void {
  if (doc.empty()) {
    out += "null";
    return;
  }
  for (std::size_t i = 0; i < doc.size();) {
    const std::size_t n = utf8_sequence_length(doc, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    if (n == 1 && (doc[i] == '\n' || doc[i] == '\r')) {
      out.push_back(' ');
    } else {
      out.append(doc.substr(i, n));
    }
    i += n;
  }
}

}  // namespace detail

inline auto append_json_value(std::string& out, const value& v) -> void {
  v.visit([&out](const auto& x) {
    using T = std::decay_t<decltype(x)>;
    if constexpr (std::is_same_v<T, null_t>) {
      out += "null";
    } else if constexpr (std::is_same_v<T, bool>) {
      out += x ? "true" : "false";
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
      char buf[24];
      const auto r = std::to_chars(buf, buf + sizeof buf, x);
      out.append(buf, r.ptr);
    } else if constexpr (std::is_same_v<T, double>) {
      detail::append_json_double(out, x);
    } else if constexpr (std::is_same_v<T, numeric> || std::is_same_v<T, text>) {
      append_json_string(out, x.view());
    } else if constexpr (std::is_same_v<T, json>) {
      detail::append_embedded_json(out, x.view());
    } else if constexpr (std::is_same_v<T, date>) {
      out.push_back('"');
      append_iso_date(out, x);
      out.push_back('"');
    } else if constexpr (std::is_same_v<T, time_of_day>) {
      out.push_back('"');
      append_iso_time(out, x);
      out.push_back('"');
    } else if constexpr (std::is_same_v<T, timestamp> || std::is_same_v<T, timestamptz>) {
      out.push_back('"');
      append_iso_timestamp(out, x);
      out.push_back('"');
    } else if constexpr (std::is_same_v<T, array>) {
      out.push_back('[');
      bool first = true;
      for (const value& e : x) {
        if (!first) out.push_back(',');
        first = false;
        append_json_value(out, e);
      }
      out.push_back(']');
    } else {
      static_assert(std::is_same_v<T, bytea> || std::is_same_v<T, uuid>, "every value alternative is rendered");
      append_json_string(out, to_string(x));
    }
  });
}

/**
 * Appends the commit time of a transaction (a wire timestamp) as a quoted ISO 8601 UTC string,
 * `"2026-01-02T03:04:05.123456Z"`. @throws std::bad_alloc only.
 */
inline auto append_json_commit_time(std::string& out, sys_microseconds at) -> void {
  out.push_back('"');
  append_iso_timestamp(out, timestamptz{to_postgres_time(at)});
  out.push_back('"');
}

/**
 * Appends the columns of @p r as a JSON object, `{"id":1,"name":"x"}`, in column order.
 *
 * Columns the server did not send because they are unchanged TOAST values are left out (they are
 * listed by name in the change's `"unchanged"` array instead; there is no value to show). With
 * @p key_only, only replica-identity columns are shown: pgoutput sends an old *key* with every
 * other column NULL, and those NULLs are not data.
 *
 * @return nothing, or `errc::decode_failure` for a malformed `numeric` or `bytea` (value-free).
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto append_json_row(std::string& out, const row& r, bool key_only = false) -> result<void> {
  out.push_back('{');
  bool first = true;
  for (const field f : r) {
    if (f.is_unchanged() || (key_only && !f.column().key)) continue;
    auto v = f.value();
    if (!v) return unexpected(v.error());
    if (!first) out.push_back(',');
    first = false;
    append_json_string(out, f.name());
    out.push_back(':');
    append_json_value(out, *v);
  }
  out.push_back('}');
  return {};
}

/**
 * The part every line of one transaction starts with:
 * `{"lsn":"0/16B3748","xid":123,"commit_time":"2026-01-02T03:04:05.5Z",`.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto transaction_prefix(const transaction& t) -> std::string {
  std::string out = "{\"lsn\":";
  append_json_lsn(out, t.commit_lsn());
  out += ",\"xid\":";
  out += std::to_string(t.xid());
  out += ",\"commit_time\":";
  append_json_commit_time(out, t.commit_time());
  out.push_back(',');
  return out;
}

/**
 * Appends one line for change @p c: @p prefix (from transaction_prefix), then `"op"`, `"schema"`,
 * `"table"` and, by operation:
 *
 * - insert: `"record"`;
 * - update: `"record"`, `"old"` when the server sent old values, `"unchanged"` (column names) when
 *   some TOASTed columns were not sent;
 * - delete: `"old"` (the key, or the whole row under `REPLICA IDENTITY FULL`);
 * - truncate: `"cascade"` and `"restart_identity"`.
 *
 * The line ends with `}` and a newline.
 * @return nothing, or `errc::decode_failure` (see append_json_row).
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto append_json_change(std::string& out, std::string_view prefix, const change& c)
    -> result<void> {
  out += prefix;
  out += "\"op\":";
  append_json_string(out, to_string(c.op()));
  out += ",\"schema\":";
  append_json_string(out, c.relation().schema);
  out += ",\"table\":";
  append_json_string(out, c.relation().table);
  if (c.op() == change_op::truncate) {
    out += c.truncate_cascade() ? ",\"cascade\":true" : ",\"cascade\":false";
    out += c.truncate_restart_identity() ? ",\"restart_identity\":true" : ",\"restart_identity\":false";
  }
  if (c.op() == change_op::insert || c.op() == change_op::update || c.op() == change_op::snapshot) {
    out += ",\"record\":";
    if (auto r = append_json_row(out, c.record()); !r) return r;
  }
  if (c.old_kind() != replicant::old_tuple_kind::none && !c.old().empty()) {
    out += ",\"old\":";
    if (auto r = append_json_row(out, c.old(), c.old_kind() == replicant::old_tuple_kind::key); !r) return r;
  }
  if (const auto unchanged = c.unchanged(); !unchanged.empty()) {
    out += ",\"unchanged\":[";
    for (std::size_t i = 0; i < unchanged.size(); ++i) {
      if (i != 0) out.push_back(',');
      append_json_string(out, unchanged[i]);
    }
    out.push_back(']');
  }
  out += "}\n";
  return {};
}

/**
 * Appends one line for logical message @p m, emitted with `pg_logical_emit_message`:
 * `{"lsn":...,"op":"message","transactional":false,"prefix":"p","content":"..."}`. For a
 * transactional message, @p prefix is the transaction's (so the line also has `"xid"` and
 * `"commit_time"`, and `"lsn"` is the commit LSN) and `"message_lsn"` is added; a non-transactional
 * one gets `"lsn"` = its own LSN. Content that is not valid UTF-8 is shown in hex as
 * `"content_hex":"\\x..."` instead of `"content"`, so binary content survives exactly.
 * @throws std::bad_alloc only.
 */
inline auto append_json_message(std::string& out, std::string_view prefix, const logical_message& m) -> void {
  if (prefix.empty()) {
    out += "{\"lsn\":";
    append_json_lsn(out, m.message_lsn);
    out.push_back(',');
  } else {
    out += prefix;
    out += "\"message_lsn\":";
    append_json_lsn(out, m.message_lsn);
    out.push_back(',');
  }
  out += m.transactional ? "\"op\":\"message\",\"transactional\":true" : "\"op\":\"message\",\"transactional\":false";
  out += ",\"prefix\":";
  append_json_string(out, m.prefix);
  const std::string_view content{reinterpret_cast<const char*>(m.content.data()), m.content.size()};
  if (is_valid_utf8(content)) {
    out += ",\"content\":";
    append_json_string(out, content);
  } else {
    out += ",\"content_hex\":";
    append_json_string(out, to_string(bytea::borrow(m.content)));
  }
  out += "}\n";
}

/**
 * Renders every line of @p t: one per change in order, then (with @p include_messages) one per
 * transactional logical message in order. pgoutput interleaves messages with changes, but a
 * @ref replicant::transaction keeps them apart, so the lines of messages come last.
 *
 * Lines accumulate in @p buffer; whenever it holds more than @p chunk_bytes, and once at the end,
 * `write(buffer)` is called, which must consume the buffer and clear it. A large transaction is
 * thus written in pieces without ever holding all of its text.
 *
 * @tparam Write callable as `result<void>(std::string&)`.
 * @return nothing, `errc::decode_failure` (see append_json_row), or the first error of @p write.
 * @throws std::bad_alloc only.
 * @par Example
 * @code
 * std::string buffer;
 * auto r = render_transaction(txn, false, buffer, [](std::string& b) -> replicant::result<void> {
 *   std::fwrite(b.data(), 1, b.size(), stdout);
 *   b.clear();
 *   return {};
 * });
 * @endcode
 */
template <class Write>
[[nodiscard]] auto render_transaction(const transaction& t, bool include_messages, std::string& buffer, Write&& write,
                                      std::size_t chunk_bytes = 64 * 1024) -> result<void> {
  const std::string prefix = transaction_prefix(t);
  for (const change& c : t.changes()) {
    if (auto r = append_json_change(buffer, prefix, c); !r) return r;
    if (buffer.size() > chunk_bytes) {
      if (auto w = write(buffer); !w) return w;
    }
  }
  if (include_messages) {
    for (const logical_message& m : t.messages()) {
      append_json_message(buffer, prefix, m);
      if (buffer.size() > chunk_bytes) {
        if (auto w = write(buffer); !w) return w;
      }
    }
  }
  if (buffer.empty()) return {};
  return write(buffer);
}

}  // namespace replicant::examples::tail

#endif  // REPLICANT_EXAMPLES_TAIL_JSON_HPP
