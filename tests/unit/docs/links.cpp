// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Every relative link of README.md and docs/**/*.md (Markdown `[text](target)` and HTML
// `href="target"`) points to a file that exists and, with a `#fragment`, to a heading of that
// file (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens, -1, -2 for repeats).
#include <boost/test/unit_test.hpp>

#include "unit/docs/support.hpp"

#include <cctype>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

BOOST_AUTO_TEST_SUITE(docs_links_tests)

namespace {

namespace fs = std::filesystem;

// The page without its fenced blocks and inline code spans, which hold code, not links.
auto prose(std::string_view page) -> std::string {
  std::string out;
  bool fenced = false;
  for (const std::string_view line : docs_support::lines(page)) {
    if (line.rfind("```", 0) == 0) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    bool code = false;
    for (const char c : line) {
      if (c == '`') code = !code;
      out.push_back(code || c == '`' ? ' ' : c);
    }
    out.push_back('\n');
  }
  return out;
}

// The GitHub anchor of a heading's text.
auto slug(std::string_view heading) -> std::string {
  std::string out;
  for (const char c : heading) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) != 0) {
      out.push_back(static_cast<char>(std::tolower(u)));
    } else if (c == ' ' || c == '-') {
      out.push_back('-');
    } else if (c == '_') {
      out.push_back('_');
    } else if (u >= 0x80) {
      out.push_back(c);  // letters beyond ASCII are kept as they are
    }
  }
  return out;
}

// Every anchor of a Markdown page's headings (outside fenced blocks).
auto anchors(std::string_view page) -> std::set<std::string> {
  std::set<std::string> out;
  std::map<std::string, int> seen;
  bool fenced = false;
  for (const std::string_view line : docs_support::lines(page)) {
    if (line.rfind("```", 0) == 0) fenced = !fenced;
    if (fenced || line.rfind('#', 0) != 0) continue;
    const auto text = line.find_first_not_of('#');
    if (text == std::string_view::npos || line[text] != ' ') continue;
    auto s = slug(line.substr(text + 1));
    const int n = seen[s]++;
    out.insert(n == 0 ? s : s + "-" + std::to_string(n));
  }
  return out;
}

// The targets of a page's links.
auto targets(std::string_view page) -> std::vector<std::string> {
  std::vector<std::string> out;
  const auto text = prose(page);
  for (std::size_t at = text.find("]("); at != std::string::npos; at = text.find("](", at + 2)) {
    const auto end = text.find(')', at + 2);
    if (end != std::string::npos) out.push_back(text.substr(at + 2, end - at - 2));
  }
  const std::string href = "href=\"";
  for (std::size_t at = text.find(href); at != std::string::npos; at = text.find(href, at + 1)) {
    const auto end = text.find('"', at + href.size());
    if (end != std::string::npos) out.push_back(text.substr(at + href.size(), end - at - href.size()));
  }
  return out;
}

auto pages() -> std::vector<fs::path> {
  const auto root = docs_support::repository_root();
  std::vector<fs::path> out{root / "README.md"};
  for (const auto& entry : fs::recursive_directory_iterator{root / "docs"}) {
    if (entry.is_regular_file() && entry.path().extension() == ".md") out.push_back(entry.path());
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(docs_links)

BOOST_AUTO_TEST_CASE(the_anchor_rule_is_githubs) {
  BOOST_TEST(slug("Options (`replicant::pipeline_options`)") == "options-replicantpipeline_options");
  BOOST_TEST(slug("The connect chain with a translating decoder") == "the-connect-chain-with-a-translating-decoder");
  BOOST_TEST((anchors("# A\n## B\n## B\n```\n# not a heading\n```\n") == std::set<std::string>{"a", "b", "b-1"}));
  BOOST_TEST((targets("[x](a.md#b) `[y](c.md)` <a href=\"d.md\">d</a>\n```\n[z](e.md)\n```\n") ==
              std::vector<std::string>{"a.md#b", "d.md"}));
}

BOOST_AUTO_TEST_CASE(every_relative_link_resolves) {
  const auto root = docs_support::repository_root();
  std::size_t checked = 0;
  for (const auto& page : pages()) {
    const auto text = docs_support::read_text(page);
    for (const auto& target : targets(text)) {
      if (target.rfind("http://", 0) == 0 || target.rfind("https://", 0) == 0 || target.rfind("mailto:", 0) == 0) {
        continue;
      }
      BOOST_TEST_CONTEXT(fs::relative(page, root).string() << " -> " << target) {
        const auto hash = target.find('#');
        const auto file = target.substr(0, hash);
        const auto resolved = file.empty() ? page : (page.parent_path() / file).lexically_normal();
        BOOST_TEST(fs::exists(resolved));
        if (hash != std::string::npos && fs::is_regular_file(resolved)) {
          BOOST_TEST(anchors(docs_support::read_text(resolved)).contains(target.substr(hash + 1)));
        }
        ++checked;
      }
    }
  }
  BOOST_TEST(checked > 50U);
}

BOOST_AUTO_TEST_CASE(every_page_is_listed_in_the_table_of_contents) {
  const auto root = docs_support::repository_root();
  const auto toc = docs_support::read_repository_file("docs/TOC.md");
  for (const auto& page : pages()) {
    const auto rel = fs::relative(page, root / "docs").string();
    if (rel == "TOC.md" || rel.rfind("..", 0) == 0) continue;
    // A page of a folder is reached through the folder's README.md, which the contents list.
    const auto listed = rel.find('/') == std::string::npos ? rel : rel.substr(0, rel.find('/') + 1) + "README.md";
    BOOST_TEST(toc.find("](" + listed + ")") != std::string::npos, rel);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // docs_links_tests
