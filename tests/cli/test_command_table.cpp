// The command table (cli/command_table.hpp) as the command line sees it: every command is named,
// summarised and has working help; a --report format its renderer does not declare is refused
// while parsing, before the command runs.

#include <doctest/doctest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/command_table.hpp"

using namespace phasecheck;
using reports::ReportFormat;

namespace {

struct Parsed {
  std::optional<int> code;
  std::string out, err;
};

/// `phasecheck ARGUMENTS...` parsed (never run).
Parsed parse(std::vector<std::string> arguments) {
  arguments.insert(arguments.begin(), "phasecheck");
  std::vector<const char*> argv;
  for (const std::string& argument : arguments) argv.push_back(argument.c_str());
  std::ostringstream out, err;
  cli::CommandLine command_line;
  const auto code = command_line.parse(static_cast<int>(argv.size()), argv.data(), out, err);
  return {code, out.str(), err.str()};
}

constexpr ReportFormat every_format[] = {ReportFormat::text, ReportFormat::json,
                                         ReportFormat::junit, ReportFormat::markdown,
                                         ReportFormat::csv};

}  // namespace

TEST_CASE("command table: every command has a name, a summary and its help") {
  std::set<std::string> names;
  for (const cli::Command* command : cli::command_table()) {
    CAPTURE(command->name);
    CHECK_FALSE(command->name.empty());
    CHECK_FALSE(command->summary.empty());
    CHECK(names.insert(std::string(command->name)).second);
    const Parsed help = parse({std::string(command->name), "--help"});
    CHECK(help.code == 0);
    CHECK(help.out.rfind(std::string(command->summary) + "\n", 0) == 0);
    CHECK(help.out.find("phasecheck " + std::string(command->name) + " [OPTIONS]") !=
          std::string::npos);
    // --report is listed with exactly the renderer's formats.
    std::string formats;
    for (const ReportFormat format : command->formats)
      formats += (formats.empty() ? "{" : ",") + std::string(reports::to_string(format));
    if (command->formats.empty())
      CHECK(help.out.find("--report") == std::string::npos);
    else
      CHECK(help.out.find("--report TEXT:" + formats + "}") != std::string::npos);
  }
  CHECK(names.size() >= 24);
  // The program's help lists every command of the table.
  const Parsed help = parse({"--help"});
  CHECK(help.code == 0);
  for (const std::string& name : names)
    CHECK(help.out.find("\n  " + name + " ") != std::string::npos);
}

TEST_CASE("command table: a --report format the renderer does not declare is refused, exit 2") {
  int refused = 0;
  for (const cli::Command* command : cli::command_table()) {
    if (command->formats.empty()) continue;
    std::string known;
    for (const ReportFormat format : command->formats)
      known += (known.empty() ? "" : ", ") + std::string(reports::to_string(format));
    for (const ReportFormat format : every_format) {
      if (reports::supports(command->formats, format)) continue;
      const std::string name(reports::to_string(format));
      CAPTURE(command->name);
      CAPTURE(name);
      const Parsed parsed = parse({std::string(command->name), "--report", name});
      CHECK(parsed.code == 2);
      CHECK(parsed.err.find("--report: unknown value '" + name + "' (known: " + known + ")") !=
            std::string::npos);
      ++refused;
    }
  }
  CHECK(refused > 0);
}

TEST_CASE("command table: a misspelled format gets its closest name") {
  const Parsed parsed = parse({"verify", "s.json", "--report", "jsn"});
  CHECK(parsed.code == 2);
  CHECK(parsed.err.find("--report: unknown value 'jsn'; did you mean 'json'? (known: text, json, "
                        "junit)") != std::string::npos);
}

TEST_CASE("command table: a declared format parses, and the command is ready to run") {
  CHECK(parse({"verify", "s.json", "--report", "junit"}).code == std::nullopt);
  CHECK(parse({"diff", "a.json", "b.json", "--report", "markdown"}).code == std::nullopt);
  CHECK(parse({"bounds", "--topology", "t.json", "--report", "csv"}).code == std::nullopt);
}
