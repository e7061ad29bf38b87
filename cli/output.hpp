#pragma once
/// Where a command's answer goes: standard output or a file, and a data command's report.

#include <iosfwd>
#include <string>
#include <vector>

#include "report/format.hpp"

namespace phasecheck::cli {

/// The text on `out` (when `output` is empty), or in the file `output`, which must not be one of
/// `inputs`.
void emit(const std::string& text, const std::string& output, std::ostream& out,
          const std::vector<std::string>& inputs);

/// Whether a data command (import, export) writes its data to standard output ("" or "-").
bool data_to_stdout(const std::string& output);

/// A data command's --report json describes what was written, so it needs the data in a file (on
/// standard output the data itself is the answer): InputError naming `command` otherwise.
void check_data_report(reports::ReportFormat format, const std::string& output,
                       const std::string& command);

}  // namespace phasecheck::cli
