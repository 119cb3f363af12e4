// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SNAPSHOT_DETAIL_IMPL_RECONCILER_HPP
#define REPLICANT_SNAPSHOT_DETAIL_IMPL_RECONCILER_HPP

// Out-of-line bodies of replicant::detail::incremental_reconciler. Included at the bottom of
// <replicant/snapshot/detail/reconciler.hpp> (which it includes nothing of back); with
// REPLICANT_SEPARATE_COMPILATION only by <replicant/snapshot/src.hpp>, which compiles them once.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/model/change.hpp>
#include <replicant/model/relation.hpp>
#include <replicant/model/transaction.hpp>
#include <replicant/snapshot/detail/progress_codec.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace replicant::detail {

REPLICANT_DECL auto incremental_reconciler::observe(const transaction& t) -> observation {
  observation seen;
  const auto messages = t.messages();
  if (!messages.empty()) {
    bool only_watermarks = t.change_count() == 0;
    for (const logical_message& m : messages) {
      if (m.prefix != watermark_prefix) {
        only_watermarks = false;
        continue;
      }
      const auto w = parse_watermark(m.content);
      if (!w || w->nonce != nonce_ || w->epoch != epoch_) continue;  // another run's, or discarded
      if (w->low) {
        window_ = snapshot_window{w->epoch, w->seq, w->table_oid, t.commit_lsn(), lsn{}};
      } else if (window_ && window_->seq == w->seq && window_->table_oid == w->table_oid) {
        window_->high = t.commit_lsn();
        seen.closed = window_;
        window_.reset();
      }
    }
    seen.watermark_only = only_watermarks;
  }
  if (!tracked_.empty() && t.change_count() > 0) record(t);
  return seen;
}

REPLICANT_DECL auto incremental_reconciler::reconcile(const snapshot_window& w, snapshot_chunk& chunk,
                                                      std::size_t drop_cap) -> outcome {
  outcome out;
  chunk.keep.assign(chunk.rows.rows(), true);
  if (chunk.read_contended || !chunk.snapshot) {
    out.contended = true;
    return out;
  }
  const xid_snapshot& seen = *chunk.snapshot;
  std::unordered_set<std::string_view> touched;
  bool truncated = false;
  bool unknown = false;
  bool any = false;
  for (const history_entry& e : history_) {
    const bool in_window = e.commit > w.low && e.commit < w.high;
    const bool unseen_before = e.commit < w.low && !seen.sees(e.xid);
    if (!in_window && !unseen_before) continue;
    for (const touch& t : e.touches) {
      if (t.oid != w.table_oid) continue;
      any = true;
      if (t.what == touch_kind::truncated) truncated = true;
      if (t.what == touch_kind::unknown) unknown = true;
      if (t.what == touch_kind::key) touched.insert(t.key);
    }
  }
  if (!chunk.keyed) {
    out.contended = any;
  } else if (unknown) {
    out.contended = true;
  } else {
    for (std::size_t i = 0; i < chunk.keep.size(); ++i) {
      if (truncated || touched.count(chunk.rows.keys[i]) != 0) {
        chunk.keep[i] = false;
        ++out.dropped;
      }
    }
    out.contended = out.dropped > drop_cap;
  }
  out.kept = chunk.keep.size() - out.dropped;
  if (out.contended) out.kept = 0;
  // Whatever this read saw, every later read sees as well.
  std::erase_if(history_, [&](const history_entry& e) { return e.commit < w.high && seen.sees(e.xid); });
  return out;
}

REPLICANT_DECL auto incremental_reconciler::rewind() noexcept -> std::uint32_t {
  window_.reset();
  return ++epoch_;
}

REPLICANT_DECL auto incremental_reconciler::record(const transaction& t) -> void {
  history_entry e{t.xid(), t.commit_lsn(), {}};
  for (const change& c : t.changes()) {
    const auto it = tracked_.find(c.relation().oid);
    if (it == tracked_.end()) continue;
    const std::uint32_t oid = c.relation().oid;
    tracked_table& table = it->second;
    if (c.op() == change_op::truncate) {
      e.touches.push_back(touch{oid, touch_kind::truncated, {}});
      continue;
    }
    if (table.key_columns.empty()) {
      e.touches.push_back(touch{oid, touch_kind::unknown, {}});
      continue;
    }
    if (!c.record_tuple().empty()) add_key(e, table, oid, c.relation(), c.record_tuple());
    if (!c.old_tuple().empty()) add_key(e, table, oid, c.relation(), c.old_tuple());
    if (c.record_tuple().empty() && c.old_tuple().empty()) e.touches.push_back(touch{oid, touch_kind::unknown, {}});
  }
  if (!e.touches.empty()) history_.push_back(std::move(e));
}

REPLICANT_DECL auto incremental_reconciler::add_key(history_entry& e, tracked_table& table, std::uint32_t oid,
                                                    const relation_info& shape, const tuple_data& tuple) -> void {
  if (table.shape != &shape) {
    table.shape = &shape;
    table.positions.clear();
    table.mapped = true;
    for (const std::string& name : table.key_columns) {
      const auto at = shape.column_index(name);
      if (!at) {
        table.mapped = false;
        break;
      }
      table.positions.push_back(*at);
    }
  }
  texts_.assign(table.positions.size(), std::string_view{});
  std::size_t found = 0;
  if (table.mapped) {
    std::size_t index = 0;
    for (const tuple_column c : tuple) {
      for (std::size_t k = 0; k < table.positions.size(); ++k) {
        if (table.positions[k] != index || c.kind != column_kind::text) continue;
        texts_[k] = c.text();
        ++found;
      }
      ++index;
    }
  }
  if (!table.mapped || found != table.positions.size()) {
    e.touches.push_back(touch{oid, touch_kind::unknown, {}});
    return;
  }
  e.touches.push_back(touch{oid, touch_kind::key, encode_key(texts_)});
}

}  // namespace replicant::detail

#endif  // REPLICANT_SNAPSHOT_DETAIL_IMPL_RECONCILER_HPP
