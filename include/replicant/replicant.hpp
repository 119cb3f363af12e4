// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_REPLICANT_HPP
#define REPLICANT_REPLICANT_HPP

/// @file
/// The umbrella header: everything a replicant user needs, in one include.

#include <replicant/version.hpp>

// Vocabulary
#include <replicant/error.hpp>
#include <replicant/result.hpp>
#include <replicant/lsn.hpp>
#include <replicant/identifier.hpp>
#include <replicant/halt.hpp>
#include <replicant/telemetry.hpp>
#include <replicant/concepts.hpp>

// Values and the transaction model
#include <replicant/pg_type.hpp>
#include <replicant/value.hpp>
#include <replicant/cast.hpp>
#include <replicant/relation.hpp>
#include <replicant/schema_change.hpp>
#include <replicant/change.hpp>
#include <replicant/mapping.hpp>
#include <replicant/transaction.hpp>

// Decoding
#include <replicant/decoder/framing.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/decoder/policy.hpp>
#include <replicant/decoder/pglogical.hpp>
#include <replicant/assembler.hpp>

// libpq
#include <replicant/pq/connection.hpp>
#include <replicant/pq/copy.hpp>
#include <replicant/pq/replication_stream.hpp>

// The replication pipeline and its policies
#include <replicant/sink.hpp>
#include <replicant/options.hpp>
#include <replicant/options_for.hpp>
#include <replicant/checkpoint/file_store.hpp>
#include <replicant/checkpoint/lib_owned.hpp>
#include <replicant/checkpoint/postgres_store.hpp>
#include <replicant/checkpoint/sink_owned.hpp>
#include <replicant/checkpoint/sink_owned_batches.hpp>
#include <replicant/checkpoint/store.hpp>
#include <replicant/snapshot/batch.hpp>
#include <replicant/snapshot/incremental.hpp>
#include <replicant/snapshot/point_in_time.hpp>
#include <replicant/spill/disk.hpp>
#include <replicant/spill/none.hpp>
#include <replicant/spill/policy.hpp>
#include <replicant/pipeline.hpp>

/// replicant: PostgreSQL logical replication into a sink, acknowledged only up to what is durable.
/// Start at @ref replicant::pipeline.
namespace replicant {
/// Value-free telemetry: the event catalog, the allowlisted keys, and how to receive events.
namespace telemetry {}
/// The libpq layer: the only code that talks to libpq.
namespace pq {}
/// The pgoutput message types and their zero-copy building blocks.
namespace pgoutput {}
}  // namespace replicant

#endif  // REPLICANT_REPLICANT_HPP
