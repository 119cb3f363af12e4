// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Under deferred_checkpoint a sink must take each transaction with its confirmation handle; one that
// has only the plain handle_transaction is told that its member does not fit (not that it has none),
// in one sentence naming the signature.
// expect: replicant: deferred_checkpoint: Sink::handle_transaction must be `result<void> handle_transaction\(const transaction&, confirmation\)` \(it confirms each transaction later, through the confirmation\)
#include <replicant/pipeline.hpp>

#include <optional>

namespace compile_fail {

struct broker_sink {
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
#ifndef REPLICANT_COMPILE_FAIL
  auto handle_transaction(const replicant::transaction& /*t*/, replicant::confirmation c) -> replicant::result<void> {
    c.confirm();
    return {};
  }
#else
  // The sink-owned signature: it would be durable at once, which is not what deferred means.
  auto handle_transaction(const replicant::transaction& t) -> replicant::result<replicant::lsn> {
    return t.commit_lsn();
  }
#endif
};

}  // namespace compile_fail

template class replicant::pipeline<replicant::pgoutput_decoder, replicant::deferred_checkpoint, replicant::no_spill,
                                   compile_fail::broker_sink>;
