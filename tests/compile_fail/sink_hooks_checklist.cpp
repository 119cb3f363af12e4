// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Every optional hook is absent or exact, and a sink that lists its hooks lists exactly those it has
// (docs/sink_hooks.md, "What every hook shares"). Per hook, one case declares it with another
// signature (_misdeclared) and one misspells its name while the list still names it (_misspelled).
// The pipeline evaluates this checklist (sink_misdeclared_hook.cpp and sink_hook_misspelled.cpp
// prove it through a pipeline, for handle_message and handle_schema_change); these cases ask it
// directly, which costs a fraction of a pipeline's compile.
// expect session_identity_misdeclared: replicant: Sink::handle_session_identity must be `result<void> handle_session_identity\(const session_identity&, const session_context&\)`
// expect session_identity_misspelled: replicant: Sink::hooks and the sink's members disagree on handle_session_identity: list hook::session_identity exactly when the sink has a member of that name \(misspelled\?\)
// expect slot_origin_misdeclared: replicant: Sink::handle_slot_origin must be `result<void> handle_slot_origin\(lsn, const slot_origin_context&\)`
// expect slot_origin_misspelled: replicant: Sink::hooks and the sink's members disagree on handle_slot_origin: list hook::slot_origin exactly when the sink has a member of that name \(misspelled\?\)
// expect prepare_misdeclared: replicant: Sink::handle_prepare must be `result<void> handle_prepare\(const prepared_event&\)`
// expect prepare_misspelled: replicant: Sink::hooks and the sink's members disagree on handle_prepare: list hook::prepare exactly when the sink has a member of that name \(misspelled\?\)
// expect snapshot_misdeclared: replicant: Sink::handle_snapshot must be `result<void> handle_snapshot\(const snapshot_batch&, const snapshot_context&\)`
// expect snapshot_misspelled: replicant: Sink::hooks and the sink's members disagree on handle_snapshot: list hook::snapshot exactly when the sink has a member of that name \(misspelled\?\)
// expect snapshot_complete_misdeclared: replicant: Sink::handle_snapshot_complete must be `result<void> handle_snapshot_complete\(lsn\)`
// expect snapshot_complete_misspelled: replicant: Sink::hooks and the sink's members disagree on handle_snapshot_complete: list hook::snapshot_complete exactly when the sink has a member of that name \(misspelled\?\)
// expect snapshot_progress_misdeclared: replicant: Sink::snapshot_progress must be `result<std::optional<std::string>> snapshot_progress\(\)`
// expect snapshot_progress_misspelled: replicant: Sink::hooks and the sink's members disagree on snapshot_progress: list hook::snapshot_progress exactly when the sink has a member of that name \(misspelled\?\)
#include <replicant/sink/concepts.hpp>

#include <optional>
#include <string>

namespace compile_fail {

using replicant::result;

struct my_sink {
  static constexpr replicant::hook hooks = replicant::hook::session_identity | replicant::hook::slot_origin |
                                           replicant::hook::prepare | replicant::hook::snapshot |
                                           replicant::hook::snapshot_complete | replicant::hook::snapshot_progress;

#if defined(REPLICANT_COMPILE_FAIL_session_identity_misdeclared)
  auto handle_session_identity(const replicant::session_identity&) -> result<void> { return {}; }
#elif defined(REPLICANT_COMPILE_FAIL_session_identity_misspelled)
  auto handle_session_identitiy(const replicant::session_identity&, const replicant::session_context&) -> result<void> {
    return {};
  }
#else
  auto handle_session_identity(const replicant::session_identity&, const replicant::session_context&) -> result<void> {
    return {};
  }
#endif

#if defined(REPLICANT_COMPILE_FAIL_slot_origin_misdeclared)
  auto handle_slot_origin(replicant::lsn, const replicant::slot_origin_context&) -> bool { return true; }
#elif defined(REPLICANT_COMPILE_FAIL_slot_origin_misspelled)
  auto handle_slot_orgin(replicant::lsn, const replicant::slot_origin_context&) -> result<void> { return {}; }
#else
  auto handle_slot_origin(replicant::lsn, const replicant::slot_origin_context&) -> result<void> { return {}; }
#endif

#if defined(REPLICANT_COMPILE_FAIL_prepare_misdeclared)
  auto handle_prepare(replicant::prepared_event&) -> result<void> { return {}; }
#elif defined(REPLICANT_COMPILE_FAIL_prepare_misspelled)
  auto handle_prepared(const replicant::prepared_event&) -> result<void> { return {}; }
#else
  auto handle_prepare(const replicant::prepared_event&) -> result<void> { return {}; }
#endif

#if defined(REPLICANT_COMPILE_FAIL_snapshot_misdeclared)
  auto handle_snapshot(const replicant::snapshot_batch&) -> result<void> { return {}; }
#elif defined(REPLICANT_COMPILE_FAIL_snapshot_misspelled)
  auto handle_snapshots(const replicant::snapshot_batch&, const replicant::snapshot_context&) -> result<void> {
    return {};
  }
#else
  auto handle_snapshot(const replicant::snapshot_batch&, const replicant::snapshot_context&) -> result<void> {
    return {};
  }
#endif

#if defined(REPLICANT_COMPILE_FAIL_snapshot_complete_misdeclared)
  auto handle_snapshot_complete() -> result<void> { return {}; }
#elif defined(REPLICANT_COMPILE_FAIL_snapshot_complete_misspelled)
  auto handle_snapshot_completed(replicant::lsn) -> result<void> { return {}; }
#else
  auto handle_snapshot_complete(replicant::lsn) -> result<void> { return {}; }
#endif

#if defined(REPLICANT_COMPILE_FAIL_snapshot_progress_misdeclared)
  auto snapshot_progress() -> result<std::string> { return std::string{}; }
#elif defined(REPLICANT_COMPILE_FAIL_snapshot_progress_misspelled)
  auto snapshot_progres() -> result<std::optional<std::string>> { return std::optional<std::string>{}; }
#else
  auto snapshot_progress() -> result<std::optional<std::string>> { return std::optional<std::string>{}; }
#endif
};

}  // namespace compile_fail

static_assert(replicant::detail::check_hooks<compile_fail::my_sink>());
