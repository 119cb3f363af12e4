# Copyright (c) 2026 The replicant authors
# SPDX-License-Identifier: MIT
#
# nats.c, the NATS client library (Debian's libnats-dev), for replicant-jetstream and its live tests:
# `replicant::nats` when it is found. Not part of the library or its package: only the JetStream
# example and tests/integration/examples/jetstream.cpp link it. Found by its header and shared
# library rather than its CMake package: Debian 12's cnats-config.cmake names a static library the
# package does not ship, and find_package() then fails the whole configuration, QUIET or not.
find_path(REPLICANT_NATS_INCLUDE_DIR nats/nats.h)
find_library(REPLICANT_NATS_LIBRARY NAMES nats)
if(REPLICANT_NATS_INCLUDE_DIR AND REPLICANT_NATS_LIBRARY)
  add_library(replicant_nats INTERFACE)
  target_include_directories(replicant_nats SYSTEM INTERFACE ${REPLICANT_NATS_INCLUDE_DIR})
  target_link_libraries(replicant_nats INTERFACE ${REPLICANT_NATS_LIBRARY})
  add_library(replicant::nats ALIAS replicant_nats)
else()
  message(STATUS "nats.c (libnats-dev) not found: replicant-jetstream is not built (tools/provision installs it)")
endif()
