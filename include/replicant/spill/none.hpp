// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SPILL_NONE_HPP
#define REPLICANT_SPILL_NONE_HPP

/// @file
/// replicant::no_spill: transactions are held in memory only.

#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>
#include <replicant/spill/policy.hpp>

#include <memory>
#include <optional>

namespace replicant {

/**
 * Spill policy: no spilling. A transaction is held in memory until it commits; one larger than
 * the resident budget (`max_inflight_bytes`), or transactions in progress that fill it together,
 * halt the pipeline with `transaction_too_large` instead of growing without bound (or waiting for
 * ever). See @ref disk_spill for the alternative.
 *
 * An empty struct, kept by the pipeline as a `[[no_unique_address]]` member: it costs nothing.
 *
 * @par Example
 * @code
 * static_assert(replicant::spill_policy<replicant::no_spill>);
 * @endcode
 *
 * @par Thread safety
 * Stateless: safe.
 */
struct no_spill {
  /// Never spills: `std::nullopt`.
  [[nodiscard]] auto limits(const spill_context& /*ctx*/) const noexcept -> std::optional<spill_limits> {
    return std::nullopt;
  }
  /// Nothing to prepare. Never fails.
  [[nodiscard]] auto prepare(const spill_context& /*ctx*/) noexcept -> result<void> { return {}; }
  /// Never called, since limits() says it never spills; `errc::io_failed` if it were.
  [[nodiscard]] auto open(const spill_context& /*ctx*/) -> result<std::unique_ptr<spill_part>> {
    return fail(errc::io_failed);
  }
};

}  // namespace replicant

#endif  // REPLICANT_SPILL_NONE_HPP
