// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_SRC_HPP
#define REPLICANT_PIPELINE_SRC_HPP

/// @file
/// The pipeline's separately compiled definitions: the libpq models of the server session and of
/// the probe, and the reading and comparing of publication definitions. Included by
/// <replicant/src.hpp>, which is what a program includes (see there).

#include <replicant/pipeline/detail/pq_probe.hpp>
#include <replicant/pipeline/detail/pq_server.hpp>
#include <replicant/pipeline/detail/publication_definition.hpp>

// The bodies the headers leave out in this mode, after the declarations they define.
#include <replicant/pipeline/detail/impl/pq_probe.hpp>
#include <replicant/pipeline/detail/impl/pq_server.hpp>
#include <replicant/pipeline/detail/impl/publication_definition.hpp>

#endif  // REPLICANT_PIPELINE_SRC_HPP
