// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CORE_IMPL_HALT_HPP
#define REPLICANT_CORE_IMPL_HALT_HPP

// Out-of-line bodies of the halt helpers that are not constant expressions: making a halt, its
// one-line description, and replicant::error's constructor. Included at the bottom of
// <replicant/core/halt.hpp> (which it includes nothing of back); with
// REPLICANT_SEPARATE_COMPILATION only by <replicant/core/src.hpp>.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/slot_invalidation.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace replicant {

namespace detail {

REPLICANT_DECL auto to_halt(halt_reason reason, std::error_code cause) -> halt {
  halt h;
  h.reason = reason;
  h.cause = cause;
  return h;
}

}  // namespace detail

REPLICANT_DECL auto halt_for(const own_halt_reason& reason, std::error_code cause) noexcept -> halt {
  halt h;
  h.reason = halt_reason::policy_halted;
  h.own = &reason;
  h.cause = cause;
  return h;
}

REPLICANT_DECL auto describe(const halt& h) -> std::string {
  std::string out = is_start_rejection(h.reason) ? "replicant refused to start: " : "replicant halted: ";
  out.append(to_string(h.reason));
  if (h.own != nullptr) {
    out.append(": ");
    out.append(h.own->name());
  }
  out.append(" (");
  out.append(h.own != nullptr ? h.own->message() : message(h.reason));
  out.push_back(')');
  if (h.table) {
    out.append("; table ");
    out.append(to_string(table_ref(*h.table)));
  }
  if (h.at) {
    out.append("; at ");
    out.append(to_string(*h.at));
  }
  if (h.lag_bytes) {
    out.append("; lag ");
    out.append(std::to_string(*h.lag_bytes));
    out.append(" bytes");
  }
  if (h.attempts) {
    out.append("; after ");
    out.append(std::to_string(*h.attempts));
    out.append(*h.attempts == 1 ? " attempt" : " attempts");
  }
  if (h.invalidation) {
    out.append("; invalidation ");
    out.append(to_string(*h.invalidation));
  }
  if (h.sqlstate) {
    out.append("; sqlstate ");
    out.append(is_sqlstate(*h.sqlstate) ? std::string_view(*h.sqlstate) : std::string_view("(malformed)"));
  }
  if (h.cause) {
    out.append("; cause ");
    out.append(h.cause.category().name());
    out.push_back(':');
    out.append(std::to_string(h.cause.value()));
    out.append(" (");
    out.append(h.cause.message());
    out.push_back(')');
  }
  out.append("; action: ");
  out.append(operator_action(h));
  return out;
}

REPLICANT_DECL error::error(replicant::halt h)
    : std::system_error(make_error_code(errc::halted)), state_(std::make_shared<state>(std::move(h))) {}

}  // namespace replicant

#endif  // REPLICANT_CORE_IMPL_HALT_HPP
