// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SNAPSHOT_SRC_HPP
#define REPLICANT_SNAPSHOT_SRC_HPP

/// @file
/// The snapshot's separately compiled definitions: the point-in-time and incremental readers' bodies
/// (all but their templates), the incremental reader thread's and reconciler's, and the catalog
/// listing, COPY text scanner and token codecs they share. Included by <replicant/src.hpp>, which is
/// what a program includes (see there).

#include <replicant/snapshot/detail/column_shapes.hpp>
#include <replicant/snapshot/detail/copy_text.hpp>
#include <replicant/snapshot/detail/decimal.hpp>
#include <replicant/snapshot/detail/progress_codec.hpp>
#include <replicant/snapshot/detail/published_tables.hpp>
#include <replicant/snapshot/detail/reconciler.hpp>
#include <replicant/snapshot/incremental.hpp>
#include <replicant/snapshot/incremental_worker.hpp>
#include <replicant/snapshot/point_in_time.hpp>

// The bodies the headers leave out in this mode, after the declarations they define.
#include <replicant/snapshot/detail/impl/column_shapes.hpp>
#include <replicant/snapshot/detail/impl/copy_text.hpp>
#include <replicant/snapshot/detail/impl/decimal.hpp>
#include <replicant/snapshot/detail/impl/progress_codec.hpp>
#include <replicant/snapshot/detail/impl/published_tables.hpp>
#include <replicant/snapshot/detail/impl/reconciler.hpp>
#include <replicant/snapshot/impl/incremental.hpp>
#include <replicant/snapshot/impl/incremental_worker.hpp>
#include <replicant/snapshot/impl/point_in_time.hpp>

#endif  // REPLICANT_SNAPSHOT_SRC_HPP
