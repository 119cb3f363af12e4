// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_REPLICANT_HPP
#define REPLICANT_REPLICANT_HPP

/// @file
/// The umbrella header: everything a replicant user needs, in one include.

#include <replicant/core/version.hpp>

// Vocabulary
#include <replicant/core/error.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/sink/concepts.hpp>
#include <replicant/telemetry/telemetry.hpp>

// Values and the transaction model
#include <replicant/model/cast.hpp>
#include <replicant/model/change.hpp>
#include <replicant/model/mapping.hpp>
#include <replicant/model/pg_type.hpp>
#include <replicant/model/relation.hpp>
#include <replicant/model/rows.hpp>
#include <replicant/model/schema_change.hpp>
#include <replicant/model/transaction.hpp>
#include <replicant/model/value.hpp>

// Decoding
#include <replicant/assembler/assembler.hpp>
#include <replicant/decoder/pglogical.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/decoder/pgoutput_reader.hpp>
#include <replicant/decoder/policy.hpp>
#include <replicant/wire/framing.hpp>

// libpq
#include <replicant/pq/connection.hpp>
#include <replicant/pq/copy.hpp>
#include <replicant/pq/replication_stream.hpp>

// The replication pipeline and its policies
#include <replicant/checkpoint/file_store.hpp>
#include <replicant/checkpoint/lib_owned.hpp>
#include <replicant/checkpoint/postgres_store.hpp>
#include <replicant/checkpoint/sink_owned.hpp>
#include <replicant/checkpoint/sink_owned_batches.hpp>
#include <replicant/checkpoint/store.hpp>
#include <replicant/pipeline/options.hpp>
#include <replicant/pipeline/pipeline.hpp>
#include <replicant/sink/vocabulary.hpp>
#include <replicant/snapshot/batch.hpp>
#include <replicant/snapshot/incremental.hpp>
#include <replicant/snapshot/point_in_time.hpp>
#include <replicant/spill/disk.hpp>
#include <replicant/spill/none.hpp>
#include <replicant/spill/policy.hpp>

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
