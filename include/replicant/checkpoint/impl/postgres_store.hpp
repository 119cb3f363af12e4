// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CHECKPOINT_IMPL_POSTGRES_STORE_HPP
#define REPLICANT_CHECKPOINT_IMPL_POSTGRES_STORE_HPP

// Out-of-line bodies of replicant::postgres_checkpoint_store. Included at the bottom of
// <replicant/checkpoint/postgres_store.hpp> (which it includes nothing of back); with
// REPLICANT_SEPARATE_COMPILATION only by <replicant/checkpoint/src.hpp>.

#include <replicant/core/detail/bounded_call.hpp>
#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/pq/connection.hpp>

#include <algorithm>
#include <bit>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace replicant {

REPLICANT_DECL postgres_checkpoint_store::postgres_checkpoint_store(postgres_store_options options)
    : options_(std::move(options)) {
  if (!identifier::validate(options_.table) || !identifier::validate(options_.progress_table)) {
    config_error_ = make_error_code(errc::invalid_identifier);
    return;
  }
  if (options_.connect_timeout <= std::chrono::milliseconds::zero() ||
      options_.command_timeout <= std::chrono::milliseconds::zero()) {
    config_error_ = make_error_code(errc::invalid_options);
    return;
  }
  // A validated plain identifier always quotes, and its quoted form holds no quote or backslash
  // that a literal would need to escape.
  quoted_table_ = quote_identifier(options_.table).value();
  table_literal_ = quote_literal(quoted_table_).value();
  quoted_progress_ = quote_identifier(options_.progress_table).value();
  progress_literal_ = quote_literal(quoted_progress_).value();
}

REPLICANT_DECL auto postgres_checkpoint_store::read(const slot_name& slot) -> result<std::optional<lsn>> {
  const detail::armed_call armed{interrupter_.get()};
  if (auto s = ready(); !s) return unexpected(s.error());
  auto rows = run("SELECT commit_lsn FROM " + quoted_table_ + " WHERE slot_name = " + slot_literal(slot));
  if (!rows) return unexpected(rows.error());
  if (rows->rows() == 0) return std::optional<lsn>{};
  // More than one row cannot happen under the unique index the probe demanded; a second row
  // would mean the shape changed under us.
  if (rows->rows() != 1 || rows->columns() != 1) return mismatch();
  const auto text = rows->get_optional(0, 0);
  if (!text) return mismatch();
  std::int64_t stored = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), stored);
  if (ec != std::errc{} || end != text->data() + text->size()) return mismatch();
  return std::optional<lsn>{lsn{std::bit_cast<std::uint64_t>(stored)}};
}

REPLICANT_DECL auto postgres_checkpoint_store::write(const slot_name& slot, lsn at) -> result<void> {
  const detail::armed_call armed{interrupter_.get()};
  if (auto s = ready(); !s) return unexpected(s.error());
  const auto stored = std::bit_cast<std::int64_t>(at.value());
  auto done = run("INSERT INTO " + quoted_table_ + " (slot_name, commit_lsn) VALUES (" + slot_literal(slot) + ", " +
                  std::to_string(stored) + ") ON CONFLICT (slot_name) DO UPDATE SET commit_lsn = EXCLUDED.commit_lsn");
  if (!done) return unexpected(done.error());
  return {};
}

REPLICANT_DECL auto postgres_checkpoint_store::read_progress(const slot_name& slot)
    -> result<std::optional<std::string>> {
  const detail::armed_call armed{interrupter_.get()};
  if (auto s = progress_ready(); !s) return unexpected(s.error());
  auto rows = run("SELECT progress FROM " + quoted_progress_ + " WHERE slot_name = " + slot_literal(slot));
  if (!rows) return unexpected(rows.error());
  if (rows->rows() == 0) return std::optional<std::string>{};
  if (rows->rows() != 1 || rows->columns() != 1 || rows->is_null(0, 0)) return mismatch();
  return std::optional<std::string>{std::string{rows->get(0, 0)}};
}

REPLICANT_DECL auto postgres_checkpoint_store::write_progress(const slot_name& slot, std::string_view token)
    -> result<void> {
  const detail::armed_call armed{interrupter_.get()};
  if (auto s = progress_ready(); !s) return unexpected(s.error());
  auto done = run("INSERT INTO " + quoted_progress_ + " (slot_name, progress) VALUES (" + slot_literal(slot) + ", " +
                  detail::escape_string_literal(token) +
                  ") ON CONFLICT (slot_name) DO UPDATE SET progress = EXCLUDED.progress");
  if (!done) return unexpected(done.error());
  return {};
}

REPLICANT_DECL auto postgres_checkpoint_store::run(const std::string& sql) -> result<pq::query_result> {
  auto r = conn_->exec(sql);
  last_sqlstate_ = conn_->last_error().sqlstate;
  if (r) return r;
  return command_failed(r.error(), detail::is_store_shape_sqlstate(last_sqlstate_) ? errc::store_mismatch
                                                                                   : errc::checkpoint_store_failed);
}

REPLICANT_DECL auto postgres_checkpoint_store::ready() -> result<void> {
  last_sqlstate_.clear();
  if (config_error_) return unexpected(config_error_);
  if (conn_ && checked_) return {};
  conn_.reset();
  // The client's own deadline comes after the server's, so that a timeout the server enforces
  // arrives as its error (with a SQLSTATE that says which), and the client's only catches a
  // server that does not answer at all.
  const int cancel = interrupter_ ? interrupter_->fd() : -1;
  auto c = pq::connection::open(options_.conninfo, pq::session_kind::normal,
                                {.timeout = options_.connect_timeout,
                                 .cancel_fd = cancel,
                                 .command_cancel_fd = cancel,
                                 .command_timeout = options_.command_timeout + std::chrono::seconds(1)});
  if (!c) {
    const bool kept = c.error() == errc::invalid_options || c.error() == errc::cancelled;
    return drop(kept ? c.error() : make_error_code(errc::connection_failed));
  }
  conn_.emplace(std::move(*c));
  // SET, not the `options` connection parameter: it comes after everything the connection
  // string, the role or the database may set, so it always wins. Notices and warnings are not
  // sent at all: they quote names ("relation ... already exists, skipping"), and libpq's default
  // handler prints them to stderr. The timeouts bound every later command on the server's side;
  // the connection check (PostgreSQL 14+) ends a statement whose client gave up, even one waiting
  // for a lock, within a second rather than at its timeout.
  // The lock timeout fires first, so that a lock wait says so (55P03) rather than 57014.
  const auto ms = [](std::chrono::milliseconds d) {
    return std::to_string(
        std::min<std::chrono::milliseconds::rep>(d.count(), std::numeric_limits<std::int32_t>::max()));
  };
  std::string pin = "SET synchronous_commit = on; SET client_min_messages = error; SET statement_timeout = " +
                    ms(options_.command_timeout + std::chrono::milliseconds(500)) +
                    "; SET lock_timeout = " + ms(options_.command_timeout);
  if (conn_->server_version() >= 140000) pin += "; SET client_connection_check_interval = 1000";
  if (auto s = run(pin); !s) return unexpected(s.error());
  if (auto there = ensure_table(quoted_table_, table_literal_, "commit_lsn", "bigint"); !there) return there;
  checked_ = true;
  return {};
}

REPLICANT_DECL auto postgres_checkpoint_store::progress_ready() -> result<void> {
  if (auto s = ready(); !s) return s;
  if (progress_checked_) return {};
  if (auto there = ensure_table(quoted_progress_, progress_literal_, "progress", "text"); !there) return there;
  progress_checked_ = true;
  return {};
}

REPLICANT_DECL auto postgres_checkpoint_store::ensure_table(const std::string& quoted, const std::string& literal,
                                                            std::string_view column, std::string_view type)
    -> result<void> {
  auto found = probe_table(literal, column, type);
  if (!found) return unexpected(found.error());
  if (*found) return {};
  if (auto created = create(quoted, std::string{column} + " " + std::string{type} + " NOT NULL"); !created) {
    return created;
  }
  found = probe_table(literal, column, type);
  if (!found) return unexpected(found.error());
  if (!*found) return drop(make_error_code(errc::checkpoint_store_failed));  // created, yet not visible
  return {};
}

REPLICANT_DECL auto postgres_checkpoint_store::create(const std::string& quoted, std::string_view value_column)
    -> result<void> {
  auto r = conn_->exec("CREATE TABLE IF NOT EXISTS " + quoted + " (slot_name text PRIMARY KEY, " +
                       std::string{value_column} + ")");
  last_sqlstate_ = conn_->last_error().sqlstate;
  if (r) return {};
  if (r.error() == errc::server_error && detail::is_concurrent_create_sqlstate(last_sqlstate_)) {
    last_sqlstate_.clear();
    return {};  // the connection is still usable: the failed statement was its own transaction
  }
  return command_failed(r.error(), errc::checkpoint_store_failed);
}

REPLICANT_DECL auto postgres_checkpoint_store::probe_table(const std::string& literal, std::string_view column,
                                                           std::string_view type) -> result<bool> {
  const std::string value = "'" + std::string{column} + "'";
  auto r =
      run("SELECT c.relkind::text, c.relpersistence::text,"
          " (SELECT pg_catalog.format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute a"
          "   WHERE a.attrelid = c.oid AND a.attname = 'slot_name' AND a.attnum > 0 AND NOT a.attisdropped),"
          " (SELECT pg_catalog.format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute a"
          "   WHERE a.attrelid = c.oid AND a.attname = " +
          value +
          " AND a.attnum > 0 AND NOT a.attisdropped),"
          // ON CONFLICT (slot_name) needs a valid, immediate, non-partial unique index on exactly it.
          " EXISTS (SELECT 1 FROM pg_catalog.pg_index i JOIN pg_catalog.pg_attribute a"
          "   ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]"
          "   WHERE i.indrelid = c.oid AND i.indisunique AND i.indimmediate AND i.indisvalid"
          "   AND i.indpred IS NULL AND i.indexprs IS NULL AND i.indnkeyatts = 1 AND a.attname = 'slot_name'),"
          // A further NOT NULL column without a default would make every insert fail.
          " EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a"
          "   WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attnotnull"
          "   AND NOT a.atthasdef AND a.attidentity = '' AND a.attgenerated = ''"
          "   AND a.attname NOT IN ('slot_name', " +
          value +
          "))"
          " FROM pg_catalog.pg_class c WHERE c.oid = pg_catalog.to_regclass(" +
          literal + ")");
  if (!r) return unexpected(r.error());
  if (r->rows() == 0) return false;
  const bool usable = r->rows() == 1 &&
                      r->columns() == 6
                      // An ordinary or partitioned table; logged, since an unlogged or temporary
                      // one forgets its rows in a crash, which breaks the store's one promise.
                      && (r->get(0, 0) == "r" || r->get(0, 0) == "p") && r->get(0, 1) == "p" &&
                      r->get(0, 2) == "text" && r->get(0, 3) == type && r->get(0, 4) == "t" && r->get(0, 5) == "f";
  if (!usable) return mismatch();
  return true;
}

}  // namespace replicant

#endif  // REPLICANT_CHECKPOINT_IMPL_POSTGRES_STORE_HPP
