// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// What the docs_* tests share: reading a file of the repository, the `//[name` ... `//]` snippets
// of a test source, the ```cpp blocks and table rows of a Markdown page. A snippet is compiled
// where it stands in its test, and the test then requires the page to quote it verbatim, so that
// an exemplar in the documentation cannot drift from code that compiles.
#ifndef REPLICANT_TESTS_UNIT_DOCS_SUPPORT_HPP
#define REPLICANT_TESTS_UNIT_DOCS_SUPPORT_HPP

#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace docs_support {

/// The repository's root (tests/data is two levels below it).
inline auto repository_root() -> std::filesystem::path {
  return std::filesystem::path{REPLICANT_TEST_DATA_DIR}.parent_path().parent_path();
}

/// The whole text of @p path; fails the test when it cannot be read.
inline auto read_text(const std::filesystem::path& path) -> std::string {
  std::ifstream in{path, std::ios::binary};
  BOOST_TEST_REQUIRE(in.good(), "cannot read " << path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A file of the repository, by its path relative to the root (e.g. "docs/spill.md").
inline auto read_repository_file(std::string_view relative) -> std::string {
  return read_text(repository_root() / relative);
}

/// The lines of @p text, without their line ends (the views point into @p text).
inline auto lines(std::string_view text) -> std::vector<std::string_view> {
  std::vector<std::string_view> out;
  std::size_t at = 0;
  while (at < text.size()) {
    auto end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    out.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

/// @p line without its leading spaces: a marker inside a function is indented as the code is.
inline auto unindented(std::string_view line) -> std::string_view {
  const auto first = line.find_first_not_of(' ');
  return first == std::string_view::npos ? std::string_view{} : line.substr(first);
}

/// The snippets of a source text: for each `//[name` line, the lines up to the next `//]` line
/// (either marker may be indented; the lines between are taken as they are).
inline auto snippets(std::string_view source) -> std::vector<std::pair<std::string, std::string>> {
  std::vector<std::pair<std::string, std::string>> out;
  std::optional<std::pair<std::string, std::string>> open;
  for (const std::string_view line : lines(source)) {
    if (!open && unindented(line).rfind("//[", 0) == 0) {
      open.emplace(std::string{unindented(line).substr(3)}, std::string{});
    } else if (open && unindented(line) == "//]") {
      out.push_back(std::move(*open));
      open.reset();
    } else if (open) {
      open->second.append(line).push_back('\n');
    }
  }
  BOOST_TEST(!open.has_value(), "a snippet is not closed with //]");
  return out;
}

/// The contents of every ```cpp fenced block of a Markdown page, each ending in a newline.
inline auto cpp_blocks(std::string_view markdown) -> std::vector<std::string> {
  std::vector<std::string> out;
  std::optional<std::string> open;
  for (const std::string_view line : lines(markdown)) {
    if (!open && line == "```cpp") {
      open.emplace();
    } else if (open && line == "```") {
      out.push_back(std::move(*open));
      open.reset();
    } else if (open) {
      open->append(line).push_back('\n');
    }
  }
  return out;
}

/// Whether one ```cpp block of @p markdown contains @p snippet verbatim.
inline auto quotes(std::string_view markdown, std::string_view snippet) -> bool {
  for (const auto& block : cpp_blocks(markdown)) {
    if (block.find(snippet) != std::string::npos) return true;
  }
  return false;
}

/// Requires every snippet of @p source to be quoted in a ```cpp block of the page @p doc.
inline auto require_quoted(std::string_view source, std::string_view doc) -> void {
  const auto page = read_repository_file(doc);
  const auto all = snippets(source);
  BOOST_TEST_REQUIRE(!all.empty(), "no snippet found");
  for (const auto& [name, text] : all) {
    BOOST_TEST(quotes(page, text), doc << " quotes the snippet " << name << " verbatim");
  }
}

/// Requires the snippet named @p name of @p source to be quoted in the page @p doc.
inline auto require_quoted(std::string_view source, std::string_view name, std::string_view doc) -> void {
  const auto page = read_repository_file(doc);
  for (const auto& [n, text] : snippets(source)) {
    if (n == name) {
      BOOST_TEST(quotes(page, text), doc << " quotes the snippet " << name << " verbatim");
      return;
    }
  }
  BOOST_TEST(false, "no snippet named " << name);
}

/// The cells of a Markdown table row, without the outer pipes, each trimmed of spaces. A `|`
/// inside backquotes is part of its cell.
inline auto cells(std::string_view row) -> std::vector<std::string> {
  std::vector<std::string> out;
  std::string cell;
  bool code = false;
  for (std::size_t i = 0; i < row.size(); ++i) {
    const char c = row[i];
    if (c == '`') code = !code;
    if (c == '|' && !code) {
      out.push_back(cell);
      cell.clear();
      continue;
    }
    cell.push_back(c);
  }
  out.push_back(cell);
  // The row starts and ends with a pipe: drop the empty cells outside them.
  if (!out.empty() && out.front().find_first_not_of(' ') == std::string::npos) out.erase(out.begin());
  if (!out.empty() && out.back().find_first_not_of(' ') == std::string::npos) out.pop_back();
  for (auto& c : out) {
    const auto first = c.find_first_not_of(' ');
    const auto last = c.find_last_not_of(' ');
    c = first == std::string::npos ? std::string{} : c.substr(first, last - first + 1);
  }
  return out;
}

/// Every table row of @p markdown whose first cell mentions `` `name` ``, as cells.
inline auto rows_naming(std::string_view markdown, std::string_view name) -> std::vector<std::vector<std::string>> {
  std::vector<std::vector<std::string>> out;
  const std::string quoted = "`" + std::string{name} + "`";
  for (const std::string_view line : lines(markdown)) {
    if (line.rfind("| ", 0) != 0) continue;
    auto row = cells(line);
    if (!row.empty() && row.front().find(quoted) != std::string::npos) out.push_back(std::move(row));
  }
  return out;
}

/// The part of @p markdown from the heading @p heading (a whole line) to the next heading of the
/// same or a higher level; empty when there is no such heading.
inline auto section(std::string_view markdown, std::string_view heading) -> std::string_view {
  const std::string start = "\n" + std::string{heading} + "\n";
  const auto from = markdown.find(start);
  if (from == std::string_view::npos) return {};
  const auto level = heading.find_first_not_of('#');
  std::size_t at = from + start.size();
  while (at < markdown.size()) {
    auto end = markdown.find('\n', at);
    if (end == std::string_view::npos) end = markdown.size();
    const auto line = markdown.substr(at, end - at);
    const auto hashes = line.find_first_not_of('#');
    if (hashes != 0 && hashes != std::string_view::npos && hashes <= level && line[hashes] == ' ') {
      return markdown.substr(from, at - from);
    }
    at = end + 1;
  }
  return markdown.substr(from);
}

}  // namespace docs_support

#endif  // REPLICANT_TESTS_UNIT_DOCS_SUPPORT_HPP
