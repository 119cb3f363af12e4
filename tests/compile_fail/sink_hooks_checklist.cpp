// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Every optional hook is absent or exact, and a sink that lists its hooks lists exactly those it has
// (docs/sink_hooks.md, "What every hook shares"). Per hook, one case declares it with other
// parameters (_misdeclared), one with another return type (_wrong_return: the member is there, so
// the sentence says what it must return, not that it is missing), and one misspells its name while
// the list still names it (_misspelled). The pipeline evaluates this checklist
// (sink_misdeclared_hook.cpp, sink_hook_misspelled.cpp and sink_wrong_return_types.cpp prove it
// through a pipeline); these cases ask it directly, which costs a fraction of a pipeline's compile.
// expect session_identity_misdeclared: replicant: Sink::handle_session_identity must be `result<void> handle_session_identity\(const session_identity&, const session_context&\)`
// expect session_identity_wrong_return: replicant: Sink::handle_session_identity has the wrong return type: it must return `result<void>` \(an error vetoes the connection\)
// expect session_identity_misspelled: replicant: Sink::hooks and the sink's members disagree on handle_session_identity: list hook::session_identity exactly when the sink has a member of that name \(misspelled\?\)
// expect slot_origin_misdeclared: replicant: Sink::handle_slot_origin must be `result<void> handle_slot_origin\(lsn, const slot_origin_context&\)`
// expect slot_origin_wrong_return: replicant: Sink::handle_slot_origin has the wrong return type: it must return `result<void>` \(an error vetoes the start position\)
// expect slot_origin_misspelled: replicant: Sink::hooks and the sink's members disagree on handle_slot_origin: list hook::slot_origin exactly when the sink has a member of that name \(misspelled\?\)
// expect schema_change_wrong_return: replicant: Sink::handle_schema_change has the wrong return type: it must return `result<void>` \(success accepts the change, an error halts\)
// expect message_wrong_return: replicant: Sink::handle_message has the wrong return type: it must return `result<void>` \(an error halts\)
// expect prepare_misdeclared: replicant: Sink::handle_prepare must be `result<void> handle_prepare\(const prepared_event&\)`
// expect prepare_wrong_return: replicant: Sink::handle_prepare has the wrong return type: it must return `result<void>` \(an error halts\)
// expect prepare_misspelled: replicant: Sink::hooks and the sink's members disagree on handle_prepare: list hook::prepare exactly when the sink has a member of that name \(misspelled\?\)
// expect snapshot_misdeclared: replicant: Sink::handle_snapshot must be `result<void> handle_snapshot\(const snapshot_batch&, const snapshot_context&\)`
// expect snapshot_wrong_return: replicant: Sink::handle_snapshot has the wrong return type: it must return `result<void>` \(an error halts the snapshot\)
// expect snapshot_misspelled: replicant: Sink::hooks and the sink's members disagree on handle_snapshot: list hook::snapshot exactly when the sink has a member of that name \(misspelled\?\)
// expect snapshot_complete_misdeclared: replicant: Sink::handle_snapshot_complete must be `result<void> handle_snapshot_complete\(lsn\)`
// expect snapshot_complete_wrong_return: replicant: Sink::handle_snapshot_complete has the wrong return type: it must return `result<void>` \(an error halts the snapshot\)
// expect snapshot_complete_misspelled: replicant: Sink::hooks and the sink's members disagree on handle_snapshot_complete: list hook::snapshot_complete exactly when the sink has a member of that name \(misspelled\?\)
// expect snapshot_progress_misdeclared: replicant: Sink::snapshot_progress must be `result<std::optional<std::string>> snapshot_progress\(\)`
// expect snapshot_progress_wrong_return: replicant: Sink::snapshot_progress has the wrong return type: it must return `result<std::optional<std::string>>` \(the progress token it stored, or none\)
// expect snapshot_progress_misspelled: replicant: Sink::hooks and the sink's members disagree on snapshot_progress: list hook::snapshot_progress exactly when the sink has a member of that name \(misspelled\?\)
#include <replicant/sink/concepts.hpp>

#include <optional>
#include <string>

namespace compile_fail {

using replicant::result;

struct my_sink {
  static constexpr replicant::hook hooks = replicant::hook::session_identity | replicant::hook::slot_origin |
                                           replicant::hook::prepare | replicant::hook::snapshot |
                                           replicant::hook::snapshot_complete | replicant::hook::snapshot_progress
#if defined(REPLICANT_COMPILE_FAIL_schema_change_wrong_return)
                                           | replicant::hook::schema_change
#elif defined(REPLICANT_COMPILE_FAIL_message_wrong_return)
                                           | replicant::hook::message
#endif
      ;

#if defined(REPLICANT_COMPILE_FAIL_schema_change_wrong_return)
  // The older, one-argument form, returning what the newer form's caller cannot take.
  auto handle_schema_change(const replicant::schema_change&) -> bool { return true; }
#elif defined(REPLICANT_COMPILE_FAIL_message_wrong_return)
  auto handle_message(const replicant::logical_message&, const replicant::message_context&) -> int { return 0; }
#endif

#if defined(REPLICANT_COMPILE_FAIL_session_identity_misdeclared)
  auto handle_session_identity(const replicant::session_identity&) -> result<void> { return {}; }
#elif defined(REPLICANT_COMPILE_FAIL_session_identity_wrong_return)
  auto handle_session_identity(const replicant::session_identity&, const replicant::session_context&) -> bool {
    return true;
  }
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
  auto handle_slot_origin(const replicant::slot_origin_context&) -> result<void> { return {}; }
#elif defined(REPLICANT_COMPILE_FAIL_slot_origin_wrong_return)
  auto handle_slot_origin(replicant::lsn, const replicant::slot_origin_context&) -> bool { return true; }
#elif defined(REPLICANT_COMPILE_FAIL_slot_origin_misspelled)
  auto handle_slot_orgin(replicant::lsn, const replicant::slot_origin_context&) -> result<void> { return {}; }
#else
  auto handle_slot_origin(replicant::lsn, const replicant::slot_origin_context&) -> result<void> { return {}; }
#endif

#if defined(REPLICANT_COMPILE_FAIL_prepare_misdeclared)
  auto handle_prepare(replicant::prepared_event&) -> result<void> { return {}; }
#elif defined(REPLICANT_COMPILE_FAIL_prepare_wrong_return)
  auto handle_prepare(const replicant::prepared_event&) -> result<replicant::lsn> { return replicant::lsn{}; }
#elif defined(REPLICANT_COMPILE_FAIL_prepare_misspelled)
  auto handle_prepared(const replicant::prepared_event&) -> result<void> { return {}; }
#else
  auto handle_prepare(const replicant::prepared_event&) -> result<void> { return {}; }
#endif

#if defined(REPLICANT_COMPILE_FAIL_snapshot_misdeclared)
  auto handle_snapshot(const replicant::snapshot_batch&) -> result<void> { return {}; }
#elif defined(REPLICANT_COMPILE_FAIL_snapshot_wrong_return)
  auto handle_snapshot(const replicant::snapshot_batch&, const replicant::snapshot_context&) -> void {}
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
#elif defined(REPLICANT_COMPILE_FAIL_snapshot_complete_wrong_return)
  auto handle_snapshot_complete(replicant::lsn) -> bool { return true; }
#elif defined(REPLICANT_COMPILE_FAIL_snapshot_complete_misspelled)
  auto handle_snapshot_completed(replicant::lsn) -> result<void> { return {}; }
#else
  auto handle_snapshot_complete(replicant::lsn) -> result<void> { return {}; }
#endif

#if defined(REPLICANT_COMPILE_FAIL_snapshot_progress_misdeclared)
  auto snapshot_progress(replicant::lsn) -> result<std::optional<std::string>> { return std::optional<std::string>{}; }
#elif defined(REPLICANT_COMPILE_FAIL_snapshot_progress_wrong_return)
  auto snapshot_progress() -> result<std::string> { return std::string{}; }
#elif defined(REPLICANT_COMPILE_FAIL_snapshot_progress_misspelled)
  auto snapshot_progres() -> result<std::optional<std::string>> { return std::optional<std::string>{}; }
#else
  auto snapshot_progress() -> result<std::optional<std::string>> { return std::optional<std::string>{}; }
#endif
};

}  // namespace compile_fail

static_assert(replicant::detail::check_hooks<compile_fail::my_sink>());
