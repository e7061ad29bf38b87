#include "properties/failure.hpp"

#include <filesystem>

#include "core/error.hpp"
#include "core/escape.hpp"
#include "core/files.hpp"
#include "io/json.hpp"

namespace phasecheck::properties {

namespace {

/// The command that shows the failure again: verify of the written schedule, on the written
/// machine when the schedule was made for another one (a generator may keep its own topology).
std::string replay(const FoundFailure& f, const std::string& dir, const std::string& again) {
  if (!f.schedule || dir.empty()) return again;
  std::string command = "phasecheck verify " + shell_word(dir + "/schedule.json");
  if (!(f.schedule->header.topology == f.topology))
    command += " --topology " + shell_word(dir + "/topology.json");
  return command;
}

}  // namespace

FuzzFailure record_failure(const FoundFailure& f, const std::string& dir, const std::string& again) {
  std::vector<std::string> files;
  if (!dir.empty()) {
    try {
      std::filesystem::create_directories(dir);
    } catch (const std::filesystem::filesystem_error& e) {
      throw InputError(dir + ": the failure's directory cannot be made: " + e.code().message());
    }
    write_output(dir + "/topology.json",
                 [&](std::ostream& os) { os << io::topology_to_pretty_json(f.topology); });
    if (f.schedule)
      write_output(dir + "/schedule.json",
                   [&](std::ostream& os) { os << io::schedule_to_json(*f.schedule); });
    write_output(dir + "/report.txt", [&](std::ostream& os) { os << f.report; });
    files = {dir + "/topology.json"};
    if (f.schedule) files.push_back(dir + "/schedule.json");
    files.push_back(dir + "/report.txt");
  }
  return {f.what,
          describe(f.topology),
          std::move(files),
          replay(f, dir, again),
          again,
          f.report,
          f.topology,
          f.schedule};
}

}  // namespace phasecheck::properties
