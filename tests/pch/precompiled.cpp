// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The translation unit that builds the test programs' shared precompiled header
// (tests/CMakeLists.txt, REPLICANT_TEST_PCH); it has no code of its own.
