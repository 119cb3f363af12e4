// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Under a library-owned checkpoint a sink that also declares checkpoint() is refused: its own
// checkpoint would be silently ignored.
// expect: replicant: lib_owned_checkpoint: the library owns the checkpoint, so Sink must not declare checkpoint\(\) \(use sink_owned_checkpoint for a sink that stores its own\)
#include <replicant/pipeline.hpp>

#include <optional>

namespace compile_fail {

struct memory_store {
  std::optional<replicant::lsn> at;
  auto read(const replicant::slot_name&) -> replicant::result<std::optional<replicant::lsn>> { return at; }
  auto write(const replicant::slot_name&, replicant::lsn to) -> replicant::result<void> {
    at = to;
    return {};
  }
};

struct my_sink {
#ifdef REPLICANT_COMPILE_FAIL
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
#endif
  auto handle_transaction(const replicant::transaction&) -> replicant::result<void> { return {}; }
};

}  // namespace compile_fail

template class replicant::pipeline<replicant::pgoutput_decoder,
                                   replicant::lib_owned_checkpoint<compile_fail::memory_store>, replicant::no_spill,
                                   compile_fail::my_sink>;
