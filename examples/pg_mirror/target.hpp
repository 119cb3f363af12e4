// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_PG_MIRROR_TARGET_HPP
#define REPLICANT_EXAMPLES_PG_MIRROR_TARGET_HPP

/// @file
/// The connection to the target database: statements with text parameters (`PQexecParams`), and
/// failures reduced to an error code and a SQLSTATE, never the server's message text.

#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>
#include <replicant/pq/connection.hpp>

#include <libpq-fe.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace replicant::examples::pg_mirror {

/**
 * Text parameters of one statement, in the form `PQexecParams` takes: NUL-terminated strings, or a
 * null pointer for SQL NULL.
 *
 * The values are copied: pgoutput's text views point into a frame and are not NUL-terminated.
 * Pointers are taken only in pointers(), after every value was added, because adding may move the
 * strings (short strings live inside the `std::string` object itself).
 *
 * @par Thread safety
 * A value type.
 */
class parameters {
 public:
  /// Appends a text value. @throws std::bad_alloc
  auto add(std::string_view text) -> void { values_.emplace_back(std::string{text}); }
  /// Appends SQL NULL. @throws std::bad_alloc
  auto add_null() -> void { values_.emplace_back(std::nullopt); }
  /// How many parameters there are; the next one is `$<size()+1>`. Never throws.
  [[nodiscard]] auto size() const noexcept -> std::size_t { return values_.size(); }
  /// Removes every parameter (keeps the capacity). Never throws.
  auto clear() noexcept -> void { values_.clear(); }
  /// The values as `PQexecParams` wants them; valid until the next change. @throws std::bad_alloc
  [[nodiscard]] auto pointers() const -> std::vector<const char*> {
    std::vector<const char*> out;
    out.reserve(values_.size());
    for (const auto& v : values_) out.push_back(v ? v->c_str() : nullptr);
    return out;
  }

 private:
  std::vector<std::optional<std::string>> values_;
};

/**
 * The outcome of one statement that succeeded: the rows it returned (as text) or how many rows it
 * changed.
 */
struct statement_result {
  /// libpq's result; owned.
  std::unique_ptr<PGresult, decltype(&PQclear)> native{nullptr, &PQclear};

  /// Rows changed by INSERT, UPDATE or DELETE (`PQcmdTuples`); 0 for other commands. Never throws.
  [[nodiscard]] auto affected() const noexcept -> long {
    const char* n = native ? PQcmdTuples(native.get()) : nullptr;
    return n != nullptr && *n != '\0' ? std::strtol(n, nullptr, 10) : 0;
  }
  /// The command tag, e.g. `"COMMIT"` (`PQcmdStatus`). Never throws.
  [[nodiscard]] auto tag() const noexcept -> std::string_view {
    const char* s = native ? PQcmdStatus(native.get()) : nullptr;
    return s != nullptr ? std::string_view{s} : std::string_view{};
  }
  /// Number of rows returned. Never throws.
  [[nodiscard]] auto rows() const noexcept -> int { return native ? PQntuples(native.get()) : 0; }
  /// A value of the result, or none for NULL. It is data: never print it. Never throws.
  [[nodiscard]] auto get(int row, int column) const noexcept -> std::optional<std::string_view> {
    if (!native || row >= rows() || column >= PQnfields(native.get())) return std::nullopt;
    if (PQgetisnull(native.get(), row, column) != 0) return std::nullopt;
    return std::string_view{PQgetvalue(native.get(), row, column),
                            static_cast<std::size_t>(PQgetlength(native.get(), row, column))};
  }
};

/**
 * A blocking connection to the target database.
 *
 * It is opened through @ref replicant::pq::connection, which pins the session settings that shape
 * value text (`DateStyle=ISO`, `IntervalStyle=postgres`, `TimeZone=UTC`, `client_encoding=UTF8`,
 * ...). The source's replication connection pins the same ones, so a value's text form as pgoutput
 * sent it is read back by the target exactly as the source meant it.
 *
 * Errors are `errc::connection_failed` (the connection is gone: retry later) or
 * `errc::server_error` with sqlstate() set; the server's message text is never kept, because it
 * can quote a row value.
 *
 * @par Thread safety
 * One thread at a time.
 */
class target_connection {
 public:
  /// Connects to @p conninfo; @p cancel_fd, once readable, aborts the attempt (-1: none).
  /// @return the connection, `errc::connection_failed`, `errc::cancelled` or `errc::invalid_options`.
  [[nodiscard]] static auto open(const std::string& conninfo, int cancel_fd) -> result<target_connection> {
    pq::connect_options o;
    o.cancel_fd = cancel_fd;
    o.timeout = std::chrono::seconds(10);
    auto c = pq::connection::open(conninfo, pq::session_kind::normal, o);
    if (!c) return unexpected(c.error());
    // pq::connection is non-blocking for the replication stream's sake; statements here simply
    // wait for their answer.
    if (PQsetnonblocking(c->native_handle(), 0) != 0) return fail(errc::connection_failed);
    // Notices (e.g. "relation ... already exists, skipping") are dropped: their text can name
    // objects or quote values, and nothing here needs them.
    PQsetNoticeProcessor(c->native_handle(), [](void*, const char*) {}, nullptr);
    return target_connection{std::move(*c)};
  }

  /**
   * Runs one statement with text parameters (`$1`, `$2`, ... take their type from where they are
   * used, so a value's text is parsed as the column's own type).
   *
   * @return the result, or an error (see the class comment).
   */
  [[nodiscard]] auto run(const std::string& sql, const parameters& params = {}) -> result<statement_result> {
    sqlstate_.clear();
    const auto values = params.pointers();
    statement_result r;
    r.native.reset(PQexecParams(conn_.native_handle(), sql.c_str(), static_cast<int>(values.size()), nullptr,
                                values.data(), nullptr, nullptr, 0));
    const auto status = r.native ? PQresultStatus(r.native.get()) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return r;
    if (const char* state = r.native ? PQresultErrorField(r.native.get(), PG_DIAG_SQLSTATE) : nullptr) {
      sqlstate_ = state;
    }
    return fail(is_open() ? errc::server_error : errc::connection_failed);
  }

  /// Whether the connection is still usable. Never throws.
  [[nodiscard]] auto is_open() const noexcept -> bool { return conn_.is_open(); }
  /// The SQLSTATE of the last failed statement (empty when there was none). Never throws.
  [[nodiscard]] auto sqlstate() const noexcept -> const std::string& { return sqlstate_; }

 private:
  explicit target_connection(pq::connection c) noexcept : conn_(std::move(c)) {}

  pq::connection conn_;
  std::string sqlstate_;
};

}  // namespace replicant::examples::pg_mirror

#endif  // REPLICANT_EXAMPLES_PG_MIRROR_TARGET_HPP
