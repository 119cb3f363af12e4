// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_DECODER_IMPL_PGOUTPUT_HPP
#define REPLICANT_DECODER_IMPL_PGOUTPUT_HPP

// Out-of-line bodies of replicant::pgoutput_decoder, the plugin policy. Included at the bottom of
// <replicant/decoder/pgoutput.hpp> (which it includes nothing of back); with
// REPLICANT_SEPARATE_COMPILATION only by <replicant/decoder/src.hpp>.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/identifier.hpp>

#include <string>

namespace replicant {

REPLICANT_DECL auto pgoutput_decoder::validate() const noexcept -> halt_or<void> {
  const pgoutput_options& o = options_;
  if (o.publications.empty()) return refuse(halt_reason::config_invalid);
  for (const auto& p : o.publications) {
    if (!identifier::validate(p)) return refuse(halt_reason::invalid_identifier);
  }
  const bool chosen = o.protocol_version != 0;
  if (o.protocol_version > 4 || (o.streaming && chosen && o.protocol_version < 2) ||
      (o.two_phase && chosen && o.protocol_version < 3)) {
    return refuse(halt_reason::config_invalid);
  }
  return {};
}

REPLICANT_DECL auto pgoutput_decoder::negotiate(const decoder_context& ctx) const -> result<start_request> {
  const pgoutput_options& o = options_;
  start_request r;
  // The highest protocol the server speaks, unless one was asked for: 4 (parallel streaming) on
  // 16 and later, 3 (two-phase) on 15.
  r.protocol.version = o.protocol_version != 0 ? o.protocol_version : ctx.server_version >= 160000 ? 4U : 3U;
  // Streaming changes the wire format of Stream Abort: `parallel` adds the abort LSN and time.
  r.protocol.streaming = !o.streaming                                              ? pgoutput_streaming::off
                         : r.protocol.version >= 4 && ctx.server_version >= 160000 ? pgoutput_streaming::parallel
                                                                                   : pgoutput_streaming::on;
  // publication_names is one string literal holding a list of identifiers (PROTOCOL.md §2.1).
  std::string names;
  for (const auto& p : o.publications) {
    auto quoted = quote_identifier(p);
    if (!quoted) return fail(errc::invalid_identifier);
    if (!names.empty()) names += ',';
    names += *quoted;
  }
  auto literal = quote_literal(names);
  if (!literal) return fail(errc::invalid_identifier);
  r.options = "proto_version '" + std::to_string(r.protocol.version) + "', publication_names " + *literal;
  if (o.messages) r.options += ", messages 'true'";
  if (r.protocol.streaming == pgoutput_streaming::parallel) r.options += ", streaming 'parallel'";
  if (r.protocol.streaming == pgoutput_streaming::on) r.options += ", streaming 'on'";
  if (o.two_phase) r.options += ", two_phase 'on'";
  if (o.origin) r.options += o.origin == origin_filter::none ? ", origin 'none'" : ", origin 'any'";
  // pgoutput takes a Boolean here and refuses '1' (PROTOCOL.md §9).
  if (o.binary) r.options += ", binary 'true'";
  return r;
}

}  // namespace replicant

#endif  // REPLICANT_DECODER_IMPL_PGOUTPUT_HPP
