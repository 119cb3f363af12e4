// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_SRC_HPP
#define REPLICANT_MODEL_SRC_HPP

// The model component's part of <replicant/src.hpp>: the bodies of the casts and of the values,
// the schema change classification and the read-back of a spilled change, compiled once.

#include <replicant/model/cast.hpp>
#include <replicant/model/schema_change.hpp>
#include <replicant/model/transaction.hpp>
#include <replicant/model/value.hpp>

#include <replicant/model/impl/cast.hpp>
#include <replicant/model/impl/schema_change.hpp>
#include <replicant/model/impl/transaction.hpp>
#include <replicant/model/impl/value.hpp>

#endif  // REPLICANT_MODEL_SRC_HPP
