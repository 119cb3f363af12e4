# Copyright (c) 2026 The replicant authors
# SPDX-License-Identifier: MIT
#
# librdkafka, the reference C client of Apache Kafka (Debian's librdkafka-dev), for replicant-kafka,
# the mock-cluster host of its tests (tests/kafka_mock) and tests/integration/examples/kafka.cpp:
# `replicant::rdkafka` when it is found. Not part of the library or its package. Found by its header
# and shared library, as nats.c is (cmake/nats.cmake); the transactional producer needs 1.4 or later,
# Debian 12 ships 2.0.2.
find_path(REPLICANT_RDKAFKA_INCLUDE_DIR librdkafka/rdkafka_mock.h)
find_library(REPLICANT_RDKAFKA_LIBRARY NAMES rdkafka)
if(REPLICANT_RDKAFKA_INCLUDE_DIR AND REPLICANT_RDKAFKA_LIBRARY)
  add_library(replicant_rdkafka INTERFACE)
  target_include_directories(replicant_rdkafka SYSTEM INTERFACE ${REPLICANT_RDKAFKA_INCLUDE_DIR})
  target_link_libraries(replicant_rdkafka INTERFACE ${REPLICANT_RDKAFKA_LIBRARY})
  add_library(replicant::rdkafka ALIAS replicant_rdkafka)
else()
  message(STATUS "librdkafka (librdkafka-dev) not found: replicant-kafka is not built (tools/provision installs it)")
endif()
