// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The one unit of the separately compiled consumer (separate.cpp) that holds the library's
// compiled-once part.
#include <replicant/src.hpp>
