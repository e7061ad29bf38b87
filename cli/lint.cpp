// `phasecheck lint msccl FILE...`: what a runtime silently ignores in MSCCL XML files
// (verify/msccl_lint.hpp), rendered by report/lint_report.hpp.

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "core/files.hpp"
#include "io/msccl_xml.hpp"
#include "report/lint_report.hpp"
#include "verify/msccl_lint.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::string format;              ///< msccl
  std::vector<std::string> files;  ///< MSCCL XML files; "-": standard input (once)
  reports::ReportFormat report = reports::ReportFormat::text;
  std::string output;  ///< the report; empty or "-": standard output
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("format", options.format, "msccl")->required()->check(one_of({"msccl"}));
  app.add_option("files", options.files, "MSCCL XML files (- for standard input)")->required();
  app.add_option("--report", options.report, "text (default), json or junit");
  app.add_option("-o,--output", options.output, "Write the report here (default: standard output)");
}

/// Attribute problems per file, size-range overlaps and gaps across them. Exit 1 when a finding
/// is an error, 0 when there are only warnings.
int run(const Options& options, const Streams& streams) {
  require_stdin_once(options.files);
  if (!data_to_stdout(options.output)) check_output(options.output, options.files);
  std::vector<verify::LintInput> inputs;
  for (const std::string& file : options.files)
    inputs.push_back({input_name(file), io::read_msccl_file(file)});
  const verify::LintReport report = verify::lint(inputs);
  emit(reports::render_lint(report, options.report), options.output, streams.out, options.files);
  return report.errors() == 0 ? 0 : 1;
}

ErrorReport error_report(const Options& options) {
  return {options.report, options.output,
          options.files.size() == 1 ? options.files[0] : std::string("lint")};
}

constexpr CommandDefinition<Options> definition{
    .name = "lint",
    .summary =
        "What a runtime silently ignores in MSCCL XML files: missing or inverted size "
        "ranges, nchunksperloop, channels, unused threadblocks, RCCL's limits; across the "
        "files, sizes two files both claim (error) or none claims (warning)",
    .formats = reports::lint_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command lint_command;
const Command lint_command = definition;

}  // namespace phasecheck::cli
