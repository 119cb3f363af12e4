// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A library-owned checkpoint needs a checkpoint store: anything else is named as such.
// expect: replicant: lib_owned_checkpoint<Store>: Store must provide `result<std::optional<lsn>> read\(const slot_name&\)` and `result<void> write\(const slot_name&, lsn\)` \(see checkpoint_store\)
#include <replicant/pipeline.hpp>

#include <optional>
#include <string>

namespace compile_fail {

struct half_store {
  auto read(const replicant::slot_name&) -> replicant::result<std::optional<replicant::lsn>> { return at; }
#ifndef REPLICANT_COMPILE_FAIL
  auto write(const replicant::slot_name&, replicant::lsn to) -> replicant::result<void> {
    at = to;
    return {};
  }
#endif
  std::optional<replicant::lsn> at;
};

struct my_sink {
  auto handle_transaction(const replicant::transaction&) -> replicant::result<void> { return {}; }
};

}  // namespace compile_fail

template class replicant::pipeline<replicant::pgoutput_decoder,
                                   replicant::lib_owned_checkpoint<compile_fail::half_store>, replicant::no_spill,
                                   compile_fail::my_sink>;
