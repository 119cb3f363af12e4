// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_IMPL_SCHEMA_CHANGE_HPP
#define REPLICANT_MODEL_IMPL_SCHEMA_CHANGE_HPP

// Out-of-line bodies of the schema change classification. Included at the bottom of
// <replicant/model/schema_change.hpp> (which it includes nothing of back); with
// REPLICANT_SEPARATE_COMPILATION only by <replicant/model/src.hpp>.

#include <replicant/core/detail/config.hpp>
#include <replicant/model/type_widening.hpp>

#include <string_view>
#include <unordered_map>
#include <vector>

namespace replicant {

REPLICANT_DECL auto widens_a_type(const schema_change& change) noexcept -> bool {
  for (const column_change& c : change.changes) {
    if (c.kind == column_change_kind::type_widened) return true;
  }
  return false;
}

REPLICANT_DECL auto classify_schema_change(const relation_info& before, const relation_info& after) -> schema_change {
  schema_change out;
  out.relation_oid = after.oid;
  out.schema = after.schema;
  out.table = after.table;

  // A renamed table is destructive for a sink that addresses its target by name: rows would start
  // landing somewhere else without anyone deciding so.
  if (before.schema != after.schema || before.table != after.table) {
    out.changes.push_back({column_change_kind::relation_renamed, {}});
  }
  if (before.identity != after.identity) {
    out.changes.push_back({column_change_kind::replica_identity_changed, {}});
  }

  // This runs only when a re-send differs from the cached description (identical re-sends are
  // recognised before any classification), so clarity wins over speed: index both sides by name.
  const auto by_name = [](const std::vector<column_info>& columns) {
    std::unordered_map<std::string_view, const column_info*> index;
    index.reserve(columns.size());
    for (const column_info& col : columns) index.emplace(col.name, &col);
    return index;
  };
  const auto old_columns = by_name(before.columns);
  const auto new_columns = by_name(after.columns);

  for (const column_info& old_col : before.columns) {
    const auto it = new_columns.find(old_col.name);
    if (it == new_columns.end()) {
      out.changes.push_back({column_change_kind::dropped, old_col.name});
      continue;
    }
    const column_info& new_col = *it->second;
    if (widens(old_col, new_col)) {
      out.changes.push_back({column_change_kind::type_widened, old_col.name});
    } else {
      if (new_col.type_oid != old_col.type_oid) out.changes.push_back({column_change_kind::type_changed, old_col.name});
      if (new_col.type_modifier != old_col.type_modifier) {
        out.changes.push_back({column_change_kind::type_modifier_changed, old_col.name});
      }
    }
    if (new_col.key != old_col.key) out.changes.push_back({column_change_kind::key_changed, old_col.name});
  }

  for (const column_info& col : after.columns) {
    if (!old_columns.contains(col.name)) out.changes.push_back({column_change_kind::added, col.name});
  }

  if (out.changes.empty()) return out;
  out.kind = schema_change_kind::additive;
  for (const column_change& c : out.changes) {
    if (!is_additive(c.kind)) out.kind = schema_change_kind::destructive;
  }
  return out;
}

}  // namespace replicant

#endif  // REPLICANT_MODEL_IMPL_SCHEMA_CHANGE_HPP
