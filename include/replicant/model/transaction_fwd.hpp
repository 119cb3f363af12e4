// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_TRANSACTION_FWD_HPP
#define REPLICANT_MODEL_TRANSACTION_FWD_HPP

/// @file
/// A forward declaration of `replicant::transaction`, so that contracts (the sink concepts) can name
/// it without pulling in the data model, and the types of its id and commit time (`sys_microseconds`, from
/// core/).

#include <replicant/core/sys_microseconds.hpp>

#include <cstdint>

namespace replicant {

/// A PostgreSQL transaction id (`TransactionId`, 32 bits on the wire).
using transaction_id = std::uint32_t;

/**
 * A committed transaction, assembled from the replication stream and delivered to the sink.
 *
 * Declared here only; the definition (commit LSN, changes, messages) lives in
 * `replicant/model/transaction.hpp`. It is declared with the `class` key, and its definition must use the
 * same key.
 */
class transaction;

}  // namespace replicant

#endif  // REPLICANT_MODEL_TRANSACTION_FWD_HPP
