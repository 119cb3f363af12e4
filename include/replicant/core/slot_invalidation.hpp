// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CORE_SLOT_INVALIDATION_HPP
#define REPLICANT_CORE_SLOT_INVALIDATION_HPP

/// @file
/// `replicant::slot_invalidation`: why the server invalidated a replication slot, the class a
/// `slot_invalidated` halt carries (`halt::invalidation`) and its telemetry event reports as `kind`.
///
/// The class decides what an operator does next: WAL removed asks for more room
/// (`max_slot_wal_keep_size`), catalog rows removed on a standby ask for `hot_standby_feedback`, a
/// lowered `wal_level` asks for it to be raised again, an idle timeout for a consumer that runs
/// (or a longer timeout). Every class costs the same recovery: a new slot and a re-synchronised
/// sink.

#include <array>
#include <optional>
#include <ostream>
#include <string_view>

namespace replicant {

/**
 * The class of a slot invalidation, as far as the server says.
 *
 * PostgreSQL 17 and later name it (`pg_replication_slots.invalidation_reason`; 18 adds
 * `idle_timeout`). Older servers do not: on 15 a slot whose `wal_status` is `lost` is `wal_removed`
 * (the one cause 15 has); 16 shows every invalidated slot as `conflicting`, and one whose restart
 * position it cleared is `wal_removed`, one that kept it lost catalog rows or its primary's
 * `wal_level` (16 does not say which): the generic `invalidated`. A reason a later server adds is
 * `invalidated` too, never its text.
 *
 * The snake_case name of each enumerator (@ref to_string(slot_invalidation)) is stable and is the
 * `kind` of the `replicant.connection.slot_invalidated` event.
 */
enum class slot_invalidation {
  /// WAL the slot still needed was removed: the slot fell further behind than
  /// `max_slot_wal_keep_size` allows. Give slots more room, or keep the consumer running.
  wal_removed = 1,
  /// Catalog rows the slot still needed were removed by vacuum on the primary (a slot on a standby
  /// running without `hot_standby_feedback`, PostgreSQL 16 and later). Turn the feedback on.
  rows_removed,
  /// `wal_level` was lowered below `logical` on the primary of the standby holding the slot (16
  /// and later). Set it back to `logical`.
  wal_level_insufficient,
  /// The slot stayed inactive for longer than `idle_replication_slot_timeout` (PostgreSQL 18).
  /// Keep its consumer running, or raise the timeout.
  idle_timeout,
  /// Invalidated, but the server does not say why (on PostgreSQL 16, one of the two standby
  /// classes above), or names a reason this version of replicant does not know.
  invalidated,
};

/// Every @ref replicant::slot_invalidation, in declaration order.
inline constexpr std::array slot_invalidations = {slot_invalidation::wal_removed, slot_invalidation::rows_removed,
                                                  slot_invalidation::wal_level_insufficient,
                                                  slot_invalidation::idle_timeout, slot_invalidation::invalidated};

/**
 * The stable snake_case name of @p c, e.g. `"wal_removed"`; `"unknown"` for a value that names no
 * class. Never throws.
 */
[[nodiscard]] constexpr auto to_string(slot_invalidation c) noexcept -> std::string_view {
  switch (c) {
    case slot_invalidation::wal_removed: return "wal_removed";
    case slot_invalidation::rows_removed: return "rows_removed";
    case slot_invalidation::wal_level_insufficient: return "wal_level_insufficient";
    case slot_invalidation::idle_timeout: return "idle_timeout";
    case slot_invalidation::invalidated: return "invalidated";
  }
  return "unknown";
}

/**
 * The class named @p name (the inverse of @ref to_string(slot_invalidation)), or `std::nullopt`
 * for a text that names none. Never throws.
 */
[[nodiscard]] constexpr auto parse_slot_invalidation(std::string_view name) noexcept
    -> std::optional<slot_invalidation> {
  for (const slot_invalidation c : slot_invalidations) {
    if (to_string(c) == name) return c;
  }
  return std::nullopt;
}

/// Writes `to_string(c)`.
inline auto operator<<(std::ostream& os, slot_invalidation c) -> std::ostream& { return os << to_string(c); }

}  // namespace replicant

#endif  // REPLICANT_CORE_SLOT_INVALIDATION_HPP
