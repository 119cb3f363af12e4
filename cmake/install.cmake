# Copyright (c) 2026 The replicant authors
# SPDX-License-Identifier: MIT
#
# Installs the headers and a relocatable CMake package:
#   find_package(replicant) -> replicant::replicant
#   find_package(replicant COMPONENTS wal2json) -> also replicant::wal2json (replicant + simdjson)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(REPLICANT_CMAKE_DIR ${CMAKE_INSTALL_DATADIR}/cmake/replicant)

install(TARGETS replicant EXPORT replicant-targets FILE_SET HEADERS)
install(EXPORT replicant-targets
  NAMESPACE replicant::
  DESTINATION ${REPLICANT_CMAKE_DIR})
if(TARGET replicant_wal2json)
  install(TARGETS replicant_wal2json EXPORT replicant-wal2json-targets)
  install(EXPORT replicant-wal2json-targets
    NAMESPACE replicant::
    DESTINATION ${REPLICANT_CMAKE_DIR})
endif()

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/replicant-config.cmake.in
  ${PROJECT_BINARY_DIR}/replicant-config.cmake
  INSTALL_DESTINATION ${REPLICANT_CMAKE_DIR})

# Before 1.0 a minor release may break the API, so only the same minor version is compatible.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/replicant-config-version.cmake
  COMPATIBILITY SameMinorVersion
  ARCH_INDEPENDENT)

# replicant.pc finds the prefix from where it lies (pkg-config's ${pcfiledir}), so that an install
# with `cmake --install --prefix DIR` into another prefix than the configured one stays right.
file(RELATIVE_PATH REPLICANT_PC_TO_PREFIX "/${CMAKE_INSTALL_DATADIR}/pkgconfig" "/")
configure_file(${PROJECT_SOURCE_DIR}/cmake/replicant.pc.in ${PROJECT_BINARY_DIR}/replicant.pc @ONLY)

install(FILES
  ${PROJECT_BINARY_DIR}/replicant-config.cmake
  ${PROJECT_BINARY_DIR}/replicant-config-version.cmake
  DESTINATION ${REPLICANT_CMAKE_DIR})
install(FILES ${PROJECT_BINARY_DIR}/replicant.pc DESTINATION ${CMAKE_INSTALL_DATADIR}/pkgconfig)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/replicant)
