// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The example checkpoint policy (examples/custom_policies/wal_bytes_checkpoint.hpp) tells its users
// what does not fit in sentences of its own, as docs/checkpoint/writing_a_policy.md asks of every
// policy: a store that is not a checkpoint store, a sink that declares checkpoint(), a sink that
// takes no transactions. Through the pipeline too: a policy that declares its checklist complete
// (checklist_covers_acceptance) is the one whose sentence comes first, not the pipeline's.
// expect store_without_write: custom_policies: wal_bytes_checkpoint<Store>: Store must be a replicant::checkpoint_store \(`read\(const slot_name&\)` and `write\(const slot_name&, lsn\)`\)
// expect sink_declares_checkpoint: custom_policies: wal_bytes_checkpoint keeps the checkpoint in its store, so Sink must not declare checkpoint\(\) \(it would be ignored\)
// expect sink_without_handle_transaction: custom_policies: wal_bytes_checkpoint: Sink must provide `result<void> handle_transaction\(const transaction&\)` \(called once per committed transaction; the checkpoint is written after it returns\)
// expect pipeline_sink_declares_checkpoint: custom_policies: wal_bytes_checkpoint keeps the checkpoint in its store, so Sink must not declare checkpoint\(\) \(it would be ignored\)
#include "../../examples/custom_policies/wal_bytes_checkpoint.hpp"

#ifdef REPLICANT_COMPILE_FAIL_pipeline_sink_declares_checkpoint
#include <replicant/pipeline.hpp>
#endif

#include <optional>

namespace compile_fail {

struct memory_store {
  auto read(const replicant::slot_name&) -> replicant::result<std::optional<replicant::lsn>> { return at; }
#ifndef REPLICANT_COMPILE_FAIL_store_without_write
  auto write(const replicant::slot_name&, replicant::lsn to) -> replicant::result<void> {
    at = to;
    return {};
  }
#endif
  std::optional<replicant::lsn> at;
};

struct my_sink {
#ifdef REPLICANT_COMPILE_FAIL_sink_declares_checkpoint
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
#endif
#ifndef REPLICANT_COMPILE_FAIL_sink_without_handle_transaction
  auto handle_transaction(const replicant::transaction&) -> replicant::result<void> { return {}; }
#endif
};

using policy = custom_policies::wal_bytes_checkpoint<memory_store>;

}  // namespace compile_fail

static_assert(compile_fail::policy::check_sink<compile_fail::my_sink>());

#ifdef REPLICANT_COMPILE_FAIL_pipeline_sink_declares_checkpoint
namespace compile_fail {
struct declaring_sink : my_sink {
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
};
using declaring_pipeline =
    replicant::pipeline<replicant::pgoutput_decoder, policy, replicant::no_spill, declaring_sink>;
inline auto make(declaring_sink& s, const replicant::pipeline_options& o) -> void {
  declaring_pipeline p{s, replicant::pgoutput_options{}, policy{}, o};
}
}  // namespace compile_fail
#endif
