// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CHECKPOINT_SRC_HPP
#define REPLICANT_CHECKPOINT_SRC_HPP

/// @file
/// The checkpoint stores' separately compiled definitions: the file store's with its file format's,
/// and the PostgreSQL store's bodies. Included by <replicant/src.hpp>, which is what a program includes
/// (see there).

#include <replicant/checkpoint/file_store.hpp>
#include <replicant/checkpoint/postgres_store.hpp>

// The bodies the header leaves out in this mode, after the declarations they define.
#include <replicant/checkpoint/impl/file_store.hpp>
#include <replicant/checkpoint/impl/postgres_store.hpp>

#endif  // REPLICANT_CHECKPOINT_SRC_HPP
