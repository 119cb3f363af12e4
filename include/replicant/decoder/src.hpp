// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_DECODER_SRC_HPP
#define REPLICANT_DECODER_SRC_HPP

/// @file
/// The decoder's separately compiled definitions: the pgoutput reader's and policy's bodies. Included by
/// <replicant/src.hpp>, which is what a program includes (see there).

#include <replicant/decoder/pgoutput.hpp>
#include <replicant/decoder/pgoutput_reader.hpp>

// The bodies the two headers leave out in this mode, after the declarations they define.
#include <replicant/decoder/impl/pgoutput.hpp>
#include <replicant/decoder/impl/pgoutput_reader.hpp>

#endif  // REPLICANT_DECODER_SRC_HPP
