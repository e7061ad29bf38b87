#include "cli/output.hpp"

#include <ostream>

#include "core/error.hpp"
#include "core/files.hpp"

namespace phasecheck::cli {

void emit(const std::string& text, const std::string& output, std::ostream& out,
          const std::vector<std::string>& inputs) {
  if (output.empty())
    out << text;
  else
    write_output(output, [&](std::ostream& os) { os << text; }, inputs);
}

bool data_to_stdout(const std::string& output) { return output.empty() || output == "-"; }

void check_data_report(reports::ReportFormat format, const std::string& output,
                       const std::string& command) {
  if (format == reports::ReportFormat::json && data_to_stdout(output))
    throw InputError(command +
                     ": --report json describes what was written: give -o FILE (on "
                     "standard output the data itself is the answer)");
}

}  // namespace phasecheck::cli
