// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// command_line's CLI11 side, compiled once for every program and test that reads a command line
// (cli.hpp says why).
#include "cli.hpp"

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace replicant::examples {
namespace {

// `--help` with a default for every option, written the same way whichever CLI11 version builds
// it: a value option shows its label and `[default]` (the text its declaration gives), or
// `REQUIRED`; a flag shows `[off]`.
class help_format : public CLI::Formatter {
 public:
  // The option's value label, default or `REQUIRED`, and `...` when it may be repeated.
  [[nodiscard]] auto make_option_opts(const CLI::Option* opt) const -> std::string override {
    if (opt->get_expected_max() == 0) return opt->get_name() == "--help" ? std::string{} : std::string{" [off]"};
    std::string text = " " + opt->get_type_name();
    if (!opt->get_default_str().empty()) text += " [" + opt->get_default_str() + "]";
    if (opt->get_expected_max() > 1) text += " ...";
    if (opt->get_required()) text += " REQUIRED";
    return text;
  }
};

// The option an error message of CLI11 begins with (its first word, without a trailing ':'), when
// that is a plain option name. Some messages name the option without its dashes.
auto leading_option(std::string_view message) -> std::string {
  const auto word = message.substr(0, message.find_first_of(": "));
  return printable_option_name(word.starts_with("-") ? std::string{word} : "--" + std::string{word});
}

// CLI11's error, reduced to an option name and fixed text: its own message may quote a value.
auto describe(const CLI::App& app, const CLI::ParseError& e) -> option_error {
  const std::string_view message = e.what();
  // CLI11 checks the required options before it reports what it did not know: an unknown option
  // is the likelier cause of a missing one, so it is named first.
  const bool extras = dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr ||
                      (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr && app.remaining_size() > 0);
  if (extras) {
    const auto extra = app.remaining();
    return {.option = extra.empty() ? std::string{} : printable_option_name(extra.front()),
            .problem = "is an unknown option or a stray value (see --help)"};
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
    return {.option = leading_option(message), .problem = "is required (see --help)"};
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) {
    const bool value_on_a_flag = message.find("flag override") != std::string_view::npos;
    return {.option = leading_option(message), .problem = value_on_a_flag ? "takes no value" : "needs a value"};
  }
  return {.option = std::string{}, .problem = "the command line cannot be read (see --help)"};
}

}  // namespace

auto command_line::option::required() -> option& {
  declared_->required();
  return *this;
}

auto command_line::option::group(const std::string& heading) -> option& {
  declared_->group(heading);
  return *this;
}

// The description ends in a blank line, before "Usage:".
command_line::command_line(std::string name, std::string description, std::string footer)
    : app_(std::make_unique<CLI::App>(std::move(description) + "\n", std::move(name))) {
  auto format = std::make_shared<help_format>();
  format->column_width(34);
  app_->formatter(std::move(format));
  app_->footer(std::move(footer));
  app_->set_help_flag("-h,--help", "print this help and exit");
}

command_line::~command_line() = default;

auto command_line::text(const std::string& names, std::string& into, const std::string& label,
                        const std::string& shown_default, const std::string& description) -> option {
  auto* opt = app_->add_option(names, into, description);
  opt->type_name(label)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  if (!shown_default.empty()) opt->default_str(shown_default);
  return option{opt};
}

auto command_line::texts(const std::string& names, std::vector<std::string>& into, const std::string& label,
                         const std::string& shown_default, const std::string& description) -> option {
  auto* opt = app_->add_option(names, into, description);
  // One value per occurrence (`--publication a --publication b`): a stray argument after it is
  // refused, not taken as another value.
  opt->type_name(label)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)->allow_extra_args(false);
  if (!shown_default.empty()) opt->default_str(shown_default);
  return option{opt};
}

auto command_line::flag(const std::string& names, bool& into, const std::string& description) -> option {
  return option{app_->add_flag(names, into, description)
                    ->disable_flag_override()
                    ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)};
}

auto command_line::parse(std::span<const char* const> args) -> std::optional<option_error> {
  std::vector<std::string> reversed;  // CLI11 takes the arguments last first
  reversed.reserve(args.size());
  for (auto it = args.rbegin(); it != args.rend(); ++it) reversed.emplace_back(*it);
  try {
    app_->parse(reversed);
  } catch (const CLI::CallForHelp&) {
    help_ = true;
  } catch (const CLI::ParseError& e) {
    return describe(*app_, e);
  }
  return std::nullopt;
}

auto command_line::given(const std::string& name) const -> bool { return app_->count(name) > 0; }

auto command_line::help() const -> std::string { return app_->help(); }

}  // namespace replicant::examples
