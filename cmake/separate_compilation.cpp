// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant_src, the compiled-once unit of this build's programs when REPLICANT_SEPARATE_COMPILATION
// is on (CMakeLists.txt; include/replicant/src.hpp says what it holds).
#include <replicant/src.hpp>
