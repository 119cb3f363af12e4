// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SNAPSHOT_DETAIL_IMPL_PROGRESS_CODEC_HPP
#define REPLICANT_SNAPSHOT_DETAIL_IMPL_PROGRESS_CODEC_HPP

// Out-of-line bodies of the incremental snapshot's texts (the fields, keys, progress tokens,
// watermarks and snapshots of <replicant/snapshot/detail/progress_codec.hpp>). Included at the
// bottom of that header (which it includes nothing of back); with REPLICANT_SEPARATE_COMPILATION
// only by <replicant/snapshot/src.hpp>, which compiles them once.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>
#include <replicant/snapshot/detail/decimal.hpp>

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace replicant::detail {

REPLICANT_DECL auto append_netstring(std::string& out, std::string_view field) -> void {
  out += std::to_string(field.size());
  out += ':';
  out += field;
}

[[nodiscard]] REPLICANT_DECL auto take_netstring(std::string_view& text) noexcept -> std::optional<std::string_view> {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > 10) return std::nullopt;
  std::size_t length = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + colon, length);
  if (ec != std::errc{} || end != text.data() + colon || length > text.size() - colon - 1) return std::nullopt;
  const auto field = text.substr(colon + 1, length);
  text.remove_prefix(colon + 1 + length);
  return field;
}

[[nodiscard]] REPLICANT_DECL auto encode_key(std::span<const std::string_view> columns) -> std::string {
  std::string out;
  for (const auto c : columns) append_netstring(out, c);
  return out;
}

[[nodiscard]] REPLICANT_DECL auto decode_key(std::string_view key) -> std::optional<std::vector<std::string_view>> {
  std::vector<std::string_view> out;
  while (!key.empty()) {
    const auto field = take_netstring(key);
    if (!field) return std::nullopt;
    out.push_back(*field);
  }
  return out;
}

[[nodiscard]] REPLICANT_DECL auto encode_position(const snapshot_position& p) -> std::string {
  std::string out;
  append_netstring(out, progress_token_magic);
  append_netstring(out, std::string_view{reinterpret_cast<const char*>(&p.at), 1});  // NOLINT: one char
  append_netstring(out, std::to_string(p.rows));
  if (p.at == snapshot_position::phase::table) {
    append_netstring(out, std::to_string(p.table_rows));
    append_netstring(out, p.table_done ? "1" : "0");
    append_netstring(out, p.schema);
    append_netstring(out, p.table);
    append_netstring(out, p.key);
  }
  return out;
}

[[nodiscard]] REPLICANT_DECL auto decode_position(std::string_view token) -> result<snapshot_position> {
  snapshot_position p;
  const auto magic = take_netstring(token);
  const auto phase = take_netstring(token);
  const auto rows = take_netstring(token);
  if (magic != progress_token_magic || !phase || phase->size() != 1 || !rows) return fail(errc::store_mismatch);
  const auto n = parse_decimal<std::uint64_t>(*rows);
  if (!n) return fail(errc::store_mismatch);
  p.rows = *n;
  switch ((*phase)[0]) {
    case 'A': p.at = snapshot_position::phase::arming; break;
    case 'C': p.at = snapshot_position::phase::complete; break;
    case 'T': {
      p.at = snapshot_position::phase::table;
      const auto table_rows = take_netstring(token);
      const auto done = take_netstring(token);
      const auto schema = take_netstring(token);
      const auto table = take_netstring(token);
      const auto key = take_netstring(token);
      if (!table_rows || !done || !schema || !table || !key || (*done != "0" && *done != "1")) {
        return fail(errc::store_mismatch);
      }
      const auto t = parse_decimal<std::uint64_t>(*table_rows);
      if (!t || !decode_key(*key) || schema->empty() || table->empty()) return fail(errc::store_mismatch);
      p.table_rows = *t;
      p.table_done = *done == "1";
      p.schema = std::string{*schema};
      p.table = std::string{*table};
      p.key = std::string{*key};
      break;
    }
    default: return fail(errc::store_mismatch);
  }
  if (!token.empty()) return fail(errc::store_mismatch);
  return p;
}

[[nodiscard]] REPLICANT_DECL auto format_watermark(const watermark& w) -> std::string {
  char nonce[16];
  for (int i = 0; i < 16; ++i) {
    nonce[i] = "0123456789abcdef"[(w.nonce >> (4U * static_cast<unsigned>(15 - i))) & 0xFU];
  }
  return std::string{nonce, 16} + '/' + std::to_string(w.epoch) + '/' + std::to_string(w.seq) + '/' +
         (w.low ? 'L' : 'H') + '/' + std::to_string(w.table_oid);
}

[[nodiscard]] REPLICANT_DECL auto parse_watermark(std::span<const std::byte> content) noexcept
    -> std::optional<watermark> {
  const std::string_view text{reinterpret_cast<const char*>(content.data()), content.size()};  // NOLINT: bytes as text
  std::string_view part[5];
  std::string_view rest = text;
  for (int i = 0; i < 5; ++i) {
    const auto slash = rest.find('/');
    if ((slash == std::string_view::npos) != (i == 4)) return std::nullopt;
    part[i] = rest.substr(0, slash);
    if (slash != std::string_view::npos) rest.remove_prefix(slash + 1);
  }
  watermark w;
  if (part[0].size() != 16) return std::nullopt;
  for (const char c : part[0]) {
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return std::nullopt;
    w.nonce = (w.nonce << 4U) | static_cast<std::uint64_t>(d);
  }
  const auto epoch = parse_decimal<std::uint32_t>(part[1]);
  const auto seq = parse_decimal<std::uint64_t>(part[2]);
  const auto oid = parse_decimal<std::uint32_t>(part[4]);
  if (!epoch || !seq || !oid || (part[3] != "L" && part[3] != "H")) return std::nullopt;
  w.epoch = *epoch;
  w.seq = *seq;
  w.low = part[3] == "L";
  w.table_oid = *oid;
  return w;
}

REPLICANT_DECL auto xid_snapshot::parse(std::string_view text) -> std::optional<xid_snapshot> {
  xid_snapshot s;
  const auto first = text.find(':');
  const auto second = first == std::string_view::npos ? first : text.find(':', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  const auto xmin = parse_decimal<std::uint64_t>(text.substr(0, first));
  const auto xmax = parse_decimal<std::uint64_t>(text.substr(first + 1, second - first - 1));
  if (!xmin || !xmax || *xmin > *xmax) return std::nullopt;
  s.xmin = *xmin;
  s.xmax = *xmax;
  std::string_view list = text.substr(second + 1);
  while (!list.empty()) {
    const auto comma = list.find(',');
    const auto x = parse_decimal<std::uint64_t>(list.substr(0, comma));
    if (!x || *x < s.xmin || *x >= s.xmax) return std::nullopt;
    s.xip.push_back(*x);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
    if (list.empty()) return std::nullopt;
  }
  std::sort(s.xip.begin(), s.xip.end());
  return s;
}

REPLICANT_DECL auto xid_snapshot::sees(std::uint32_t xid) const noexcept -> bool {
  const auto delta = static_cast<std::int32_t>(xid - static_cast<std::uint32_t>(xmax));
  const auto full = static_cast<std::int64_t>(xmax) + delta;
  if (full < 0) return true;  // older than anything a recent snapshot can miss
  const auto x = static_cast<std::uint64_t>(full);
  if (x < xmin) return true;
  if (x >= xmax) return false;
  return !std::binary_search(xip.begin(), xip.end(), x);
}

}  // namespace replicant::detail

#endif  // REPLICANT_SNAPSHOT_DETAIL_IMPL_PROGRESS_CODEC_HPP
