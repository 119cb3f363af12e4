// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_IMPL_TRANSACTION_HPP
#define REPLICANT_MODEL_IMPL_TRANSACTION_HPP

// Out-of-line body of change_range's read-back of a spilled change, the cold path of iterating a
// transaction (what a transaction held in memory runs stays inline in the header). Included at the
// bottom of <replicant/model/transaction.hpp> (which it includes nothing of back); with
// REPLICANT_SEPARATE_COMPILATION only by <replicant/model/src.hpp>.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>

namespace replicant {

REPLICANT_DECL auto change_range::read_next() const -> step {
  auto& c = cursor_;
  auto more = c.reader.next(c.record);
  if (!more) return failed(more.error());
  if (!*more) return step::done;
  if (c.record.relation_index >= relations_.size() || !relations_[c.record.relation_index]) {
    return failed(make_error_code(errc::decode_failure));
  }
  const relation_info& relation = *relations_[c.record.relation_index];
  if (c.record.op == change_op::truncate) {
    c.current.emplace(change::truncation(relation, c.record.cascade, c.record.restart_identity));
  } else {
    c.current.emplace(c.record.op, relation, c.record.new_tuple, c.record.old_kind, c.record.old_tuple);
  }
  return step::read;
}

}  // namespace replicant

#endif  // REPLICANT_MODEL_IMPL_TRANSACTION_HPP
