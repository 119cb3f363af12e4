// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SPILL_NONE_HPP
#define REPLICANT_SPILL_NONE_HPP

/// @file
/// replicant::no_spill: transactions are held in memory only.

namespace replicant {

/**
 * Spill policy: no spilling. A transaction is held in memory until it commits; one larger than
 * the resident budget (`max_inflight_bytes`), or transactions in progress that fill it together,
 * halt the pipeline with `transaction_too_large` instead of growing without bound (or waiting for
 * ever). See @ref disk_spill for the alternative.
 */
struct no_spill {};

}  // namespace replicant

#endif  // REPLICANT_SPILL_NONE_HPP
