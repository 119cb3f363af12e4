// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CORE_IMPL_ERROR_HPP
#define REPLICANT_CORE_IMPL_ERROR_HPP

// Out-of-line bodies of replicant::errc's category (its messages, and the one category object)
// and of the functions that classify codes. Included at the bottom of <replicant/core/error.hpp>
// (which it includes nothing of back); with REPLICANT_SEPARATE_COMPILATION only by
// <replicant/core/src.hpp>, which then also holds the category's virtual table.

#include <replicant/core/detail/config.hpp>

#include <string>
#include <string_view>
#include <system_error>

namespace replicant {

namespace detail {

REPLICANT_DECL auto error_category::message(int code) const -> std::string {
  switch (static_cast<errc>(code)) {
    case errc::decode_failure: return "malformed replication data";
    case errc::invalid_lsn: return "not a valid LSN";
    case errc::invalid_identifier: return "identifier is not of an allowed shape";
    case errc::invalid_options: return "invalid or contradictory options";
    case errc::connection_failed: return "connection to the server failed or was lost";
    case errc::server_error: return "the server reported an error";
    case errc::protocol_violation: return "the server violated the replication protocol";
    case errc::unsupported_server: return "the server does not support what was requested";
    case errc::sink_failed: return "the sink failed";
    case errc::checkpoint_store_failed: return "the checkpoint store failed";
    case errc::io_failed: return "a local file operation failed";
    case errc::halted: return "the pipeline halted";
    case errc::column_missing: return "the row has no column of that name";
    case errc::type_mismatch: return "the column's value does not fit the requested type";
    case errc::column_unchanged: return "the column's value was not sent (unchanged TOAST)";
    case errc::cancelled: return "stopped on request";
    case errc::store_mismatch: return "the checkpoint store holds data of another shape or slot";
    case errc::connection_refused: return "the server refused the connection for good";
    case errc::publication_missing: return "a requested publication does not exist";
    case errc::spill_exhausted: return "spilling would exceed the disk budget";
    case errc::protocol_unsupported: return "the output plugin speaks an unsupported protocol version";
    case errc::lsn_missing: return "a message arrived without the LSN it must carry";
  }
  return "unknown replicant error";
}

}  // namespace detail

REPLICANT_DECL auto error_category() noexcept -> const std::error_category& {
  static const detail::error_category instance;
  return instance;
}

REPLICANT_DECL auto is_fatal(std::error_code ec) noexcept -> bool {
  if (!ec) return false;
  if (ec.category() != error_category()) return true;
  const auto e = static_cast<errc>(ec.value());
  return e != errc::connection_failed && e != errc::cancelled;
}

REPLICANT_DECL auto is_sqlstate(std::string_view s) noexcept -> bool {
  if (s.size() != 5) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z'))) return false;
  }
  return true;
}

}  // namespace replicant

#endif  // REPLICANT_CORE_IMPL_ERROR_HPP
