// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_IMPL_CONNECT_HPP
#define REPLICANT_PIPELINE_IMPL_CONNECT_HPP

// How replicant::pipeline connects a session (included at the bottom of pipeline.hpp): a
// replication connection opened with libpq, then the connect chain (detail/connect_chain.hpp) on it.

#include <utility>

namespace replicant {

// The connect chain on a new replication connection (libpq's model of server_session).
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::connect(session& s) -> result<pq::replication_stream> {
  auto opened = pq::connection::open(state_.options.conninfo, pq::session_kind::replication, state_.stoppable_connect(),
                                     &s.refusal);
  if (!opened) return unexpected(opened.error());
  detail::pq_server server{std::move(*opened)};
  return connect_on(s, server);
}

// The connect chain (detail/connect_chain.hpp) on @p server.
template <class D, class C, class S, class Sink>
template <server_session Server>
auto pipeline<D, C, S, Sink>::connect_on(session& s, Server& server) -> result<typename Server::stream_type> {
  return detail::connect_chain<D, session, engine_hooks>{state_, decoder_, s, engine_hooks{this}}.run(server);
}

}  // namespace replicant

#endif  // REPLICANT_PIPELINE_IMPL_CONNECT_HPP
