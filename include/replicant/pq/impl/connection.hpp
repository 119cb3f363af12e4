// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PQ_IMPL_CONNECTION_HPP
#define REPLICANT_PQ_IMPL_CONNECTION_HPP

// Out-of-line bodies of replicant::pq::connection and of its helpers: opening a connection (the
// connection string merged with the pinned settings, the non-blocking connect, the refusal's
// classification), running a command, and the wait on a socket that copy.hpp and
// replication_stream.hpp share. Included at the bottom of <replicant/pq/connection.hpp> (which it
// includes nothing of back); with REPLICANT_SEPARATE_COMPILATION only by <replicant/pq/src.hpp>,
// so that they are compiled once.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>

#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace replicant::pq {

REPLICANT_DECL auto connection::remember_error(const PGresult* res) -> void {
  const char* state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  last_error_.sqlstate = state ? state : "";
}

namespace detail {

REPLICANT_DECL auto wait_for(int fd, short events, int cancel_fd, std::chrono::steady_clock::time_point deadline)
    -> result<void> {
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return fail(errc::connection_failed);
    pollfd fds[2] = {{fd, events, 0}, {cancel_fd, POLLIN, 0}};
    const auto wait_ms = std::min<std::chrono::milliseconds::rep>(left.count(), 1'000'000'000);
    const int n = ::poll(fds, cancel_fd >= 0 ? 2 : 1, static_cast<int>(wait_ms));
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(errc::connection_failed);
    }
    if (cancel_fd >= 0 && (fds[1].revents & POLLIN) != 0) return fail(errc::cancelled);
    if (n > 0 && fds[0].revents != 0) return {};
  }
}

REPLICANT_DECL auto sqlstate_in(std::string_view message) -> std::string {
  for (auto at = message.find(":  "); at != std::string_view::npos; at = message.find(":  ", at + 1)) {
    const auto code = message.substr(at + 3, 6);
    if (code.size() == 6 && code[5] == ':' && replicant::is_sqlstate(code.substr(0, 5))) {
      return std::string{code.substr(0, 5)};
    }
  }
  return {};
}

REPLICANT_DECL auto classify_tls_failure(std::string_view message, tls_reach reach) noexcept -> refusal {
  // A failed verification first: libpq may answer the TLS request, begin the handshake and fail it
  // within one poll, so that the state seen last is still the request's (reach declined).
  if (message.find("certificate") != std::string_view::npos) return refusal::tls_verification;
  if (reach == tls_reach::declined) return refusal::tls;
  return refusal::none;
}

REPLICANT_DECL auto classify_refusal(std::string_view message, bool needs_password, std::string_view sslmode,
                                     tls_reach reach) -> connect_refusal {
  auto state = sqlstate_in(message);
  if (state == "28P01") return {refusal::authentication, std::move(state)};
  if (state == "3D000") return {refusal::database, std::move(state)};
  if (state == "28000") {
    const bool hba = message.find("pg_hba.conf") != std::string_view::npos;
    return {hba ? refusal::host : refusal::role, std::move(state)};
  }
  if (!state.empty()) return {};  // the server said something else: too many clients, starting up, ...
  if (needs_password) return {refusal::authentication, {}};
  // Without a sslmode that requires TLS, libpq falls back to a plain connection rather than fail on
  // TLS, so a TLS word in its message is no refusal of ours there.
  if (requires_tls(sslmode)) return {classify_tls_failure(message, reach), {}};
  return {};
}

REPLICANT_DECL auto conninfo_value(PGconn* conn, std::string_view keyword) -> std::string {
  std::string value;
  PQconninfoOption* all = PQconninfo(conn);
  for (const PQconninfoOption* o = all; o != nullptr && o->keyword != nullptr; ++o) {
    if (o->val != nullptr && keyword == o->keyword) value = o->val;
  }
  if (all != nullptr) PQconninfoFree(all);
  return value;
}

}  // namespace detail

REPLICANT_DECL auto connection::open(std::string_view conninfo, session_kind kind, const connect_options& options,
                                     connect_refusal* refused) -> result<connection> {
  // Parse the caller's string ourselves so that our settings can be merged into theirs, not replace them.
  char* parse_error = nullptr;
  const std::string info{conninfo};
  PQconninfoOption* parsed = PQconninfoParse(info.c_str(), &parse_error);
  if (parse_error) PQfreemem(parse_error);  // may echo the input: never surfaced
  if (!parsed) return fail(errc::invalid_options);

  std::vector<std::string> keys;
  std::vector<std::string> values;
  std::string session_options;
  for (const PQconninfoOption* o = parsed; o->keyword; ++o) {
    if (!o->val) continue;
    const std::string_view key = o->keyword;
    if (key == "options") {
      session_options = o->val;
    } else if (key != "replication" && key != "client_encoding") {
      keys.emplace_back(key);
      values.emplace_back(o->val);
    }
  }
  PQconninfoFree(parsed);
  if (!session_options.empty()) session_options += ' ';
  session_options += detail::pinned_options;
  keys.emplace_back("options");
  values.push_back(std::move(session_options));
  keys.emplace_back("client_encoding");
  values.emplace_back("UTF8");
  if (kind == session_kind::replication) {
    keys.emplace_back("replication");
    values.emplace_back("database");
  }

  std::vector<const char*> key_ptrs;
  std::vector<const char*> value_ptrs;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    key_ptrs.push_back(keys[i].c_str());
    value_ptrs.push_back(values[i].c_str());
  }
  key_ptrs.push_back(nullptr);
  value_ptrs.push_back(nullptr);

  connect_refusal why;
  auto c = attempt(key_ptrs.data(), value_ptrs.data(), options, why);
  if (!c && c.error() == errc::connection_refused && why.why == refusal::tls) {
    // A server without TLS declines again at once; one that closed the connection at the TLS
    // request (stopping, restarting) refuses the connection or says it is starting up instead.
    why = {};
    c = attempt(key_ptrs.data(), value_ptrs.data(), options, why);
  }
  if (!c && c.error() == errc::connection_refused && refused != nullptr) *refused = std::move(why);
  return c;
}

REPLICANT_DECL auto connection::attempt(const char* const* keys, const char* const* values,
                                        const connect_options& options, connect_refusal& why) -> result<connection> {
  // Connect asynchronously so that a stop request (cancel_fd) or the timeout can interrupt it.
  connection c{PQconnectStartParams(keys, values, 0)};
  if (!c.conn_ || PQstatus(c.conn_.get()) == CONNECTION_BAD) return fail(errc::connection_failed);
  // libpq prints server notices and warnings to stderr by default; their text can name objects or
  // carry whatever a server-side function put in it, so none of it may reach our output.
  PQsetNoticeProcessor(c.conn_.get(), [](void*, const char*) {}, nullptr);
  // Verbose error texts carry the SQLSTATE of a refusal (the only part of them that is read).
  PQsetErrorVerbosity(c.conn_.get(), PQERRORS_VERBOSE);
  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  auto reach = detail::tls_reach::none;
  for (PostgresPollingStatusType st = PGRES_POLLING_WRITING; st != PGRES_POLLING_OK;) {
    if (st == PGRES_POLLING_FAILED) {
      why = detail::classify_refusal(PQerrorMessage(c.conn_.get()), PQconnectionNeedsPassword(c.conn_.get()) != 0,
                                     detail::conninfo_value(c.conn_.get(), "sslmode"), reach);
      return fail(why.why == refusal::none ? errc::connection_failed : errc::connection_refused);
    }
    const short events = st == PGRES_POLLING_READING ? short{POLLIN} : short{POLLOUT};
    if (auto w = detail::wait_for(PQsocket(c.conn_.get()), events, options.cancel_fd, deadline); !w) {
      return unexpected(w.error());
    }
    st = PQconnectPoll(c.conn_.get());
    // libpq waits for the answer to its TLS request in CONNECTION_SSL_STARTUP, and PQsslInUse
    // turns true once it begins the handshake; failing in between, the server declined (or left).
    if (PQsslInUse(c.conn_.get()) != 0) {
      reach = detail::tls_reach::handshake;
    } else if (reach == detail::tls_reach::none && PQstatus(c.conn_.get()) == CONNECTION_SSL_STARTUP) {
      reach = detail::tls_reach::declined;
    }
  }
  if (PQsetnonblocking(c.conn_.get(), 1) != 0) return fail(errc::connection_failed);
  c.cancel_fd_ = options.command_cancel_fd;
  c.command_timeout_ = options.command_timeout;
  return c;
}

REPLICANT_DECL auto connection::exec(const std::string& sql) -> result<query_result> {
  last_error_.sqlstate.clear();
  // Non-blocking sends: flush until the whole command is out, then collect results as they arrive.
  if (PQsendQuery(conn_.get(), sql.c_str()) == 0) return fail(errc::connection_failed);
  const auto deadline = std::chrono::steady_clock::now() + command_timeout_;
  for (int f; (f = PQflush(conn_.get())) != 0;) {
    if (f < 0) return fail(errc::connection_failed);
    if (auto w = detail::wait_for(socket(), POLLIN | POLLOUT, cancel_fd_, deadline); !w) return unexpected(w.error());
    if (PQconsumeInput(conn_.get()) == 0) return fail(errc::connection_failed);
  }
  query_result last{nullptr};
  bool failed = false;
  for (;;) {
    while (PQisBusy(conn_.get()) != 0) {
      if (auto w = detail::wait_for(socket(), POLLIN, cancel_fd_, deadline); !w) return unexpected(w.error());
      if (PQconsumeInput(conn_.get()) == 0) return fail(errc::connection_failed);
    }
    PGresult* res = PQgetResult(conn_.get());
    if (!res) break;
    switch (PQresultStatus(res)) {
      case PGRES_COMMAND_OK:
      case PGRES_TUPLES_OK:
      case PGRES_EMPTY_QUERY:
        if (!failed)
          last = query_result{res};
        else
          PQclear(res);
        break;
      case PGRES_COPY_BOTH:
      case PGRES_COPY_OUT:
      case PGRES_COPY_IN:
        // A command that starts a copy: hand the connection state back to the caller as it is.
        return query_result{res};
      default:
        if (!failed) remember_error(res);
        failed = true;
        PQclear(res);
        break;
    }
  }
  if (failed) return is_open() ? fail(errc::server_error) : fail(errc::connection_failed);
  if (!is_open()) return fail(errc::connection_failed);
  return last;
}

}  // namespace replicant::pq

#endif  // REPLICANT_PQ_IMPL_CONNECTION_HPP
