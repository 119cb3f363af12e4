// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_HPP
#define REPLICANT_PIPELINE_HPP

/// @file
/// The header a program that runs a pipeline includes: `replicant::pipeline` with its options, the
/// pgoutput decoder, the checkpoint and spill policies the library ships, and the sink contract.
/// The other decoders (`decoder/wal2json.hpp`, `decoder/pglogical.hpp`), the checkpoint stores
/// (`checkpoint/file_store.hpp`, `checkpoint/postgres_store.hpp`) and struct mapping
/// (`model/mapping.hpp`) are included where they are used; `replicant.hpp` includes everything.

#include <replicant/pipeline/pipeline.hpp>

#endif  // REPLICANT_PIPELINE_HPP
