// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TRANSACTION_FWD_HPP
#define REPLICANT_TRANSACTION_FWD_HPP

/// @file
/// A forward declaration of `replicant::transaction`, so that contracts (the sink concepts) can name
/// it without pulling in the data model.

namespace replicant {

/**
 * A committed transaction, assembled from the replication stream and delivered to the sink.
 *
 * Declared here only; the definition (commit LSN, changes, messages) lives in
 * `replicant/transaction.hpp`. It is declared with the `class` key, and its definition must use the
 * same key.
 */
class transaction;

}  // namespace replicant

#endif  // REPLICANT_TRANSACTION_FWD_HPP
