// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SNAPSHOT_IMPL_POINT_IN_TIME_HPP
#define REPLICANT_SNAPSHOT_IMPL_POINT_IN_TIME_HPP

// Out-of-line bodies of replicant::point_in_time_snapshot. Included at the bottom of
// <replicant/snapshot/point_in_time.hpp>, which it includes nothing of back.
//
// The catalog is read inside the imported snapshot (publications, then their tables, then the
// tables' columns), so the tables, their column lists, row filters and shapes are those of the
// snapshot's moment, like the rows. Every text that
// comes back is a name, a number or server-written SQL (a row filter); none of it ever reaches an
// error, and numbers that do not parse are a protocol_violation rather than a guess.

#include <replicant/core/halt.hpp>
#include <replicant/model/tuple.hpp>
#include <replicant/pq/copy.hpp>
#include <replicant/snapshot/detail/copy_text.hpp>
#include <replicant/snapshot/detail/published_tables.hpp>

#include <poll.h>

#include <functional>
#include <utility>

namespace replicant {

inline point_in_time_snapshot::point_in_time_snapshot(point_in_time_snapshot&& other) noexcept
    : conn_(std::exchange(other.conn_, nullptr)),
      consistent_point_(other.consistent_point_),
      options_(other.options_),
      in_transaction_(std::exchange(other.in_transaction_, false)),
      tables_(std::move(other.tables_)),
      copy_commands_(std::move(other.copy_commands_)),
      arena_(std::move(other.arena_)),
      row_ends_(std::move(other.row_ends_)),
      changes_(std::move(other.changes_)) {}

inline auto point_in_time_snapshot::operator=(point_in_time_snapshot&& other) noexcept -> point_in_time_snapshot& {
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

inline auto point_in_time_snapshot::abort() noexcept -> void {
  if (conn_ != nullptr && in_transaction_) {
    in_transaction_ = false;
    static_cast<void>(pq::detail::rollback_quietly(*conn_));
  }
}

inline auto point_in_time_snapshot::open(pq::connection& conn, const exported_snapshot& snapshot,
                                         std::span<const std::string> publications, const snapshot_options& options)
    -> result<point_in_time_snapshot> {
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

inline auto point_in_time_snapshot::import_snapshot(std::string_view name) -> result<void> {
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

inline auto point_in_time_snapshot::list_tables(std::span<const std::string> publications) -> result<void> {
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

inline auto point_in_time_snapshot::cancel_requested() const noexcept -> bool {
  if (options_.cancel_fd < 0) return false;
  pollfd fd{options_.cancel_fd, POLLIN, 0};
  return ::poll(&fd, 1, 0) > 0 && (fd.revents & POLLIN) != 0;
}

template <class Handler>
auto point_in_time_snapshot::deliver(Handler& on_batch, std::size_t table, bool last, std::uint64_t table_rows_before,
                                     std::uint64_t rows_before) -> result<void> {
  if (cancel_requested()) return fail(errc::cancelled);
  const relation_info& relation = *tables_[table].relation;
  changes_.clear();
  std::size_t begin = 0;
  for (const std::size_t end : row_ends_) {
    // Re-parsed by the decoder's own TupleData reader: the only way to a tuple_data, and a check
    // that the encoding above produced exactly what a streamed row would hold.
    const auto tuple = parse_tuple_data(std::span<const std::byte>{arena_.data() + begin, end - begin});
    if (!tuple) return unexpected(tuple.error());
    changes_.emplace_back(change_op::snapshot, relation, *tuple);
    begin = end;
  }
  snapshot_context context;
  context.consistent_point = consistent_point_;
  context.first_for_table = table_rows_before == 0;
  context.last_for_table = last;
  context.table_index = table;
  context.table_count = tables_.size();
  context.table_rows_before = table_rows_before;
  context.rows_before = rows_before;
  const snapshot_batch batch{relation, changes_};
  auto handled = std::invoke(on_batch, batch, std::as_const(context));
  changes_.clear();
  arena_.clear();
  row_ends_.clear();
  return handled;
}

template <snapshot_batch_handler Handler>
auto point_in_time_snapshot::read(Handler&& on_batch) -> result<snapshot_summary> {
  if (!in_transaction_) return fail(errc::invalid_options);  // read already, or aborted
  // Whatever ends this call early (an error, the handler's exception) leaves no open transaction.
  struct rollback_guard {
    point_in_time_snapshot* self;
    ~rollback_guard() { self->abort(); }
  } const guard{this};

  snapshot_summary summary;
  summary.consistent_point = consistent_point_;
  arena_.clear();
  row_ends_.clear();
  for (std::size_t table = 0; table < tables_.size(); ++table) {
    const std::size_t columns = tables_[table].relation->columns.size();
    auto copy = pq::copy_out::start(*conn_, copy_commands_[table], options_.cancel_fd);
    if (!copy) return unexpected(copy.error());
    std::uint64_t table_rows = 0;  // rows delivered in earlier batches of this table
    for (;;) {
      auto line = copy->next();
      if (!line) return unexpected(line.error());
      if (!*line) break;
      // A full batch goes out only once another row exists, so that the batch that ends a table is
      // always the one marked last_for_table.
      if (row_ends_.size() >= options_.batch_rows || arena_.size() >= options_.batch_bytes) {
        const std::uint64_t n = row_ends_.size();
        if (auto handled = deliver(on_batch, table, false, table_rows, summary.rows); !handled) {
          return unexpected(handled.error());
        }
        table_rows += n;
        summary.rows += n;
      }
      if (const auto ec = detail::copy_text_row_to_tuple(**line, columns, arena_); ec) return unexpected(ec);
      row_ends_.push_back(arena_.size());
    }
    const std::uint64_t n = row_ends_.size();
    if (auto handled = deliver(on_batch, table, true, table_rows, summary.rows); !handled) {
      return unexpected(handled.error());
    }
    summary.rows += n;
    ++summary.tables;
  }
  if (auto committed = conn_->exec("COMMIT"); !committed) return unexpected(committed.error());
  in_transaction_ = false;
  return summary;
}

}  // namespace replicant

#endif  // REPLICANT_SNAPSHOT_IMPL_POINT_IN_TIME_HPP
