# Copyright (c) 2026 The replicant authors
# SPDX-License-Identifier: MIT
#
# prometheus-cpp (Debian's prometheus-cpp-dev): the metric registry and text format (`core`) and the
# HTTP exposer on civetweb (`pull`), for replicant-prometheus and its tests. Not part of the library
# or its package. Without it the program and its tests are not built, and
# tests/integration/examples/prometheus.cpp fails where every part is required (CI) and skips
# elsewhere.
find_package(prometheus-cpp CONFIG QUIET)
if(NOT TARGET prometheus-cpp::pull)
  message(STATUS "prometheus-cpp (prometheus-cpp-dev) not found: replicant-prometheus is not built (tools/provision installs it)")
endif()
