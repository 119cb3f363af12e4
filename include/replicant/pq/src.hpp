// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PQ_SRC_HPP
#define REPLICANT_PQ_SRC_HPP

/// @file
/// The libpq layer's separately compiled definitions: opening a connection and running commands,
/// the copy reader's and the replication stream's bodies. Included by <replicant/src.hpp>, which
/// is what a program includes (see there).

#include <replicant/pq/connection.hpp>
#include <replicant/pq/copy.hpp>
#include <replicant/pq/replication_stream.hpp>

// The bodies the three headers leave out in this mode, after the declarations they define.
#include <replicant/pq/impl/connection.hpp>
#include <replicant/pq/impl/copy.hpp>
#include <replicant/pq/impl/replication_stream.hpp>

#endif  // REPLICANT_PQ_SRC_HPP
