// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_CHECKS_WRITTEN_OUTPUT_HPP
#define REPLICANT_TESTS_SUPPORT_CHECKS_WRITTEN_OUTPUT_HPP

// The output file of an example sink that writes one line per change and closes each transaction
// with a commit line (replicant-jsonl-sink, replicant-custom-policies), read back as a reader of it
// would: whole transactions, then applied once each by commit LSN. Each test brings the parser of
// its program's line format.

#include <replicant/core/lsn.hpp>

#include "support/common/temp_dir.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace replicant::test {

/// One line of the file, as a program's line parser reads it.
struct written_line {
  /// What the line is.
  enum class kind {
    insert,  ///< an insert into the table under test, carrying `id`
    commit,  ///< the transaction's commit line, carrying `changes` and, where written, `spilled`
    other,   ///< a line of the format that is neither: counted as malformed
  };
  lsn commit;                 ///< the transaction's commit LSN, on every line
  kind what = kind::other;    ///< the line's kind
  std::int64_t id = 0;        ///< an insert's id
  std::size_t changes = 0;    ///< a commit line's count of change lines
  std::uint64_t spilled = 0;  ///< a commit line's spilled bytes
};

/// One transaction of the file: its commit LSN, the ids of its change lines, the bytes it spilled.
struct written_transaction {
  lsn commit;                     ///< its commit LSN
  std::vector<std::int64_t> ids;  ///< the ids of its inserts, in file order
  std::uint64_t spilled = 0;      ///< from its commit line
};

/// The file: transactions closed by their commit lines, and what does not fit that shape.
struct parsed_output {
  std::vector<written_transaction> transactions;  ///< every commit line, in file order
  std::size_t incomplete = 0;                     ///< change lines not followed by their commit line
  std::size_t malformed = 0;                      ///< lines of no known shape, or commit lines that miscount
};

/**
 * Reads the file at @p path, each line through @p parse_line: a callable taking the line and
 * returning `std::optional<written_line>`, empty for a line that is not of the format.
 */
template <class LineParser>
auto parse_output(const std::filesystem::path& path, LineParser parse_line) -> parsed_output {
  parsed_output out;
  std::istringstream in{read_file(path)};
  std::optional<written_transaction> open;
  for (std::string text; std::getline(in, text);) {
    const std::optional<written_line> line = parse_line(text);
    if (!line) {
      ++out.malformed;
      continue;
    }
    if (open && open->commit != line->commit) {  // a new transaction began before the last one's commit line
      ++out.incomplete;
      open.reset();
    }
    if (!open) open = written_transaction{line->commit, {}, 0};
    switch (line->what) {
      case written_line::kind::commit:
        if (line->changes != open->ids.size()) ++out.malformed;
        open->spilled = line->spilled;
        out.transactions.push_back(std::move(*open));
        open.reset();
        break;
      case written_line::kind::insert: open->ids.push_back(line->id); break;
      case written_line::kind::other: ++out.malformed; break;
    }
  }
  if (open) ++out.incomplete;
  return out;
}

/// The file as applied by a reader that skips the commit LSNs it has seen.
struct applied_output {
  std::vector<std::int64_t> ids;  ///< the ids applied, in order
  std::size_t repeats = 0;        ///< transactions skipped as repeats
};

/// @p p applied once per commit LSN.
inline auto apply(const parsed_output& p) -> applied_output {
  applied_output out;
  std::optional<lsn> last;
  for (const auto& t : p.transactions) {
    if (last && t.commit <= *last) {
      ++out.repeats;
      continue;
    }
    last = t.commit;
    out.ids.insert(out.ids.end(), t.ids.begin(), t.ids.end());
  }
  return out;
}

/// The ids 1 to @p n.
inline auto one_to(std::int64_t n) -> std::vector<std::int64_t> {
  std::vector<std::int64_t> v;
  for (std::int64_t i = 1; i <= n; ++i) v.push_back(i);
  return v;
}

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_CHECKS_WRITTEN_OUTPUT_HPP
