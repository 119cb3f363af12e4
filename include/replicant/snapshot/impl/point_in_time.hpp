// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SNAPSHOT_IMPL_POINT_IN_TIME_HPP
#define REPLICANT_SNAPSHOT_IMPL_POINT_IN_TIME_HPP

// Out-of-line bodies of replicant::point_in_time_snapshot (all but its templates, read() and
// deliver(), which stay in the header) and of replicant::validate_snapshot_name. Included at the
// bottom of <replicant/snapshot/point_in_time.hpp> (which it includes nothing of back); with
// REPLICANT_SEPARATE_COMPILATION only by <replicant/snapshot/src.hpp>, which compiles them once.
//
// The catalog is read inside the imported snapshot (publications, then their tables, then the
// tables' columns), so the tables, their column lists, row filters and shapes are those of the
// snapshot's moment, like the rows. Every text that
// comes back is a name, a number or server-written SQL (a row filter); none of it ever reaches an
// error, and numbers that do not parse are a protocol_violation rather than a guess.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/result.hpp>
#include <replicant/pq/connection.hpp>
#include <replicant/pq/copy.hpp>
#include <replicant/snapshot/detail/published_tables.hpp>

#include <poll.h>

#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace replicant {

[[nodiscard]] REPLICANT_DECL auto validate_snapshot_name(std::string_view name) noexcept -> result<void> {
  if (name.empty()) return fail(identifier_error::empty);
  if (name.size() > 64) return fail(identifier_error::too_long);
  for (const char c : name) {
    if (!((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || c == '-')) return fail(identifier_error::bad_character);
  }
  return {};
}

REPLICANT_DECL point_in_time_snapshot::point_in_time_snapshot(point_in_time_snapshot&& other) noexcept
    : conn_(std::exchange(other.conn_, nullptr)),
      consistent_point_(other.consistent_point_),
      options_(other.options_),
      in_transaction_(std::exchange(other.in_transaction_, false)),
      tables_(std::move(other.tables_)),
      copy_commands_(std::move(other.copy_commands_)),
      arena_(std::move(other.arena_)),
      row_ends_(std::move(other.row_ends_)),
      changes_(std::move(other.changes_)) {}

REPLICANT_DECL auto point_in_time_snapshot::operator=(point_in_time_snapshot&& other) noexcept
    -> point_in_time_snapshot& {
  if (this != &other) {
    abort();
    conn_ = std::exchange(other.conn_, nullptr);
    consistent_point_ = other.consistent_point_;
    options_ = other.options_;
    in_transaction_ = std::exchange(other.in_transaction_, false);
    tables_ = std::move(other.tables_);
    copy_commands_ = std::move(other.copy_commands_);
    arena_ = std::move(other.arena_);
    row_ends_ = std::move(other.row_ends_);
    changes_ = std::move(other.changes_);
  }
  return *this;
}

REPLICANT_DECL auto point_in_time_snapshot::abort() noexcept -> void {
  if (conn_ != nullptr && in_transaction_) {
    in_transaction_ = false;
    static_cast<void>(pq::detail::rollback_quietly(*conn_));
  }
}

REPLICANT_DECL auto point_in_time_snapshot::open(pq::connection& conn, const exported_snapshot& snapshot,
                                                 std::span<const std::string> publications,
                                                 const snapshot_options& options) -> result<point_in_time_snapshot> {
  if (options.batch_rows == 0 || options.batch_bytes == 0 || publications.empty()) return fail(errc::invalid_options);
  if (auto ok = validate_snapshot_name(snapshot.name); !ok) return unexpected(ok.error());
  if (!conn.is_open()) return fail(errc::connection_failed);
  // Column lists and row filters, and the catalog columns that expose them, exist from 15 on.
  if (conn.server_version() < 150000) return fail(errc::unsupported_server);

  point_in_time_snapshot s{conn, snapshot, options};
  if (auto imported = s.import_snapshot(snapshot.name); !imported) return unexpected(imported.error());
  // From here on the destructor of `s` rolls back on every early return.
  if (auto listed = s.list_tables(publications); !listed) return unexpected(listed.error());
  return s;
}

REPLICANT_DECL auto point_in_time_snapshot::import_snapshot(std::string_view name) -> result<void> {
  const auto literal = quote_literal(name);
  if (!literal) return unexpected(literal.error());
  // SET TRANSACTION SNAPSHOT must be the transaction's first statement, and REPEATABLE READ is the
  // only level that can import the walsender's snapshot: SERIALIZABLE refuses a snapshot exported
  // by a non-serializable transaction (PROTOCOL.md §6.1). READ ONLY because a snapshot is a read.
  auto r = conn_->exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET TRANSACTION SNAPSHOT " + *literal);
  if (!r) {
    // The BEGIN may have succeeded before the import failed: end that transaction (keeping the
    // import's SQLSTATE in last_error()).
    static_cast<void>(pq::detail::rollback_quietly(*conn_));
    return unexpected(r.error());
  }
  in_transaction_ = true;
  return {};
}

REPLICANT_DECL auto point_in_time_snapshot::list_tables(std::span<const std::string> publications) -> result<void> {
  auto listed = detail::read_published_tables(*conn_, publications);
  if (!listed) return unexpected(listed.error());
  tables_.reserve(listed->size());
  copy_commands_.reserve(listed->size());
  for (detail::published_table& t : *listed) {
    const bool filtered = !t.filter.empty();
    copy_commands_.push_back("COPY (" + t.select + (filtered ? " WHERE " + t.filter : std::string{}) + ") TO STDOUT");
    tables_.push_back(snapshot_table{std::move(t.relation), filtered});
  }
  return {};
}

REPLICANT_DECL auto point_in_time_snapshot::cancel_requested() const noexcept -> bool {
  if (options_.cancel_fd < 0) return false;
  pollfd fd{options_.cancel_fd, POLLIN, 0};
  return ::poll(&fd, 1, 0) > 0 && (fd.revents & POLLIN) != 0;
}

}  // namespace replicant

#endif  // REPLICANT_SNAPSHOT_IMPL_POINT_IN_TIME_HPP
