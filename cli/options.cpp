#include "cli/options.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>

#include "core/suggest.hpp"

namespace phasecheck::cli {

CLI::Validator one_of(std::vector<std::string> names) {
  std::string description;
  for (const std::string& name : names) description += (description.empty() ? "{" : ",") + name;
  return CLI::Validator(
      [names](std::string& value) -> std::string {
        if (std::find(names.begin(), names.end(), value) != names.end()) return {};
        return unknown_name("value", value, names);
      },
      description + "}");
}

const CLI::Validator& natural() {
  static const CLI::Validator validator(
      [](std::string& text) -> std::string {
        std::uint64_t value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
          return "'" + text + "' is not a non-negative integer";
        if (error != std::errc() || end != text.data() + text.size())
          return "'" + text + "' is too large";
        return {};
      },
      "N");
  return validator;
}

CLI::Option* bytes_option(CLI::Option* option) {
  return option
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            if (text.empty() || text[0] < '0' || text[0] > '9')
              return "'" + text + "' is not a size in bytes (4096, 4KiB, 1MiB)";
            std::uint64_t number = 0;  // the digits before a unit must fit, too
            if (std::from_chars(text.data(), text.data() + text.size(), number).ec != std::errc())
              return "'" + text + "' is too large";
            return {};
          },
          ""))
      ->transform(CLI::AsSizeValue(false).description(""))
      ->type_name("BYTES");
}

CLI::Option* old_spelling(CLI::Option* option, std::string now) {
  return option->group(renamed_group)->description(std::move(now));
}

CLI::Validator report_format(std::span<const reports::ReportFormat> formats) {
  std::vector<std::string> names;
  for (const reports::ReportFormat format : formats) names.emplace_back(to_string(format));
  CLI::Validator known = one_of(names);
  return CLI::Validator(
      [known](std::string& value) -> std::string {
        if (std::string problem = known(value); !problem.empty()) return problem;
        // CLI11 reads an enum as its underlying integer.
        value = std::to_string(static_cast<int>(*reports::report_format_named(value)));
        return {};
      },
      known.get_description());
}

}  // namespace phasecheck::cli
