// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_DETAIL_SLOT_STATE_HPP
#define REPLICANT_PIPELINE_DETAIL_SLOT_STATE_HPP

/// @file
/// Whether a slot is invalidated, and why, from the columns of its `pg_replication_slots` row that
/// the server's version has. The connect chain reads them at every connect, so a slot invalidated
/// while it streamed (the server ends the walsender first, then marks the slot) is classified at
/// the reconnect that follows, the same way as one found invalidated at start.
///
/// Only the server's fixed words are compared; nothing read here leaves this function but the
/// class, so a reason a later server adds becomes the generic `invalidated`, never its text.

#include <replicant/core/slot_invalidation.hpp>

#include <optional>
#include <string_view>

namespace replicant::detail {

// The invalidation columns of one slot, as the server's text. A column the server version lacks,
// or a NULL, is nullopt.
struct slot_invalidation_columns {
  std::optional<std::string_view> wal_status{};           // 13+: reserved, extended, unreserved, lost
  std::optional<std::string_view> restart_lsn{};          // NULL once invalidated for removed WAL (15, 16)
  std::optional<std::string_view> conflicting{};          // 16: t when invalidated at all; 17+: by a conflict
  std::optional<std::string_view> invalidation_reason{};  // 17+: why, when invalidated
};

// PostgreSQL's name for an invalidation cause (`invalidation_reason`, 17+; `idle_timeout`, 18) as
// a class. A name replicant does not know is the generic class, so that a new server's reason
// still halts, and its text never travels further.
[[nodiscard]] constexpr auto slot_invalidation_from_server(std::string_view reason) noexcept -> slot_invalidation {
  if (reason == "wal_removed") return slot_invalidation::wal_removed;
  if (reason == "rows_removed") return slot_invalidation::rows_removed;
  if (reason == "wal_level_insufficient") return slot_invalidation::wal_level_insufficient;
  if (reason == "idle_timeout") return slot_invalidation::idle_timeout;
  return slot_invalidation::invalidated;
}

// The class of the slot's invalidation, or nullopt for a slot that is still valid.
//
// 17+ names the cause. 16 does not: it shows every invalidated slot as conflicting and lost, but it
// clears the restart position only of a slot invalidated for removed WAL, so a conflicting slot
// that kept it lost catalog rows or its primary's wal_level, 16 does not say which (the generic
// class). 15 can invalidate a slot for removed WAL only, and shows it as lost.
[[nodiscard]] constexpr auto slot_invalidation_of(const slot_invalidation_columns& c) noexcept
    -> std::optional<slot_invalidation> {
  if (c.invalidation_reason) return slot_invalidation_from_server(*c.invalidation_reason);
  if (c.conflicting == "t") return c.restart_lsn ? slot_invalidation::invalidated : slot_invalidation::wal_removed;
  if (c.wal_status == "lost") return slot_invalidation::wal_removed;
  return std::nullopt;
}

}  // namespace replicant::detail

#endif  // REPLICANT_PIPELINE_DETAIL_SLOT_STATE_HPP
