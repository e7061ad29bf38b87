// `phasecheck lint msccl FILE...` and `lint mscclpp FILE...`: what a runtime silently ignores or
// gets wrong in MSCCL XML files (verify/msccl_lint.hpp) and MSCCL++ execution plans
// (verify/mscclpp_lint.hpp), rendered by report/lint_report.hpp.

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "core/files.hpp"
#include "io/msccl_xml.hpp"
#include "io/mscclpp_plan.hpp"
#include "report/lint_report.hpp"
#include "verify/msccl_lint.hpp"
#include "verify/mscclpp_lint.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::string format;              ///< msccl or mscclpp
  std::vector<std::string> files;  ///< MSCCL XML files or MSCCL++ plans; "-": standard input (once)
  reports::ReportFormat report = reports::ReportFormat::text;
  std::string output;  ///< the report; empty or "-": standard output
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("format", options.format, "msccl (MSCCL XML) or mscclpp (MSCCL++ plans)")
      ->required()
      ->check(one_of({"msccl", "mscclpp"}));
  app.add_option("files", options.files, "The files (- for standard input)")->required();
  app.add_option("--report", options.report, "text (default), json or junit");
  app.add_option("-o,--output", options.output, "Write the report here (default: standard output)");
}

verify::LintReport lint_files(const Options& options) {
  if (options.format == "mscclpp") {
    std::vector<verify::MscclppLintInput> inputs;
    for (const std::string& file : options.files)
      inputs.push_back({input_name(file), io::read_mscclpp_plan_file(file)});
    return verify::lint_mscclpp(inputs);
  }
  std::vector<verify::LintInput> inputs;
  for (const std::string& file : options.files)
    inputs.push_back({input_name(file), io::read_msccl_file(file)});
  return verify::lint(inputs);
}

/// Problems per file, size-range overlaps and gaps across them. Exit 1 when a finding is an
/// error, 0 when there are only warnings.
int run(const Options& options, const Streams& streams) {
  require_stdin_once(options.files);
  if (!data_to_stdout(options.output)) check_output(options.output, options.files);
  const verify::LintReport report = lint_files(options);
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
        "What a runtime silently ignores in MSCCL XML files or MSCCL++ plans: size ranges, "
        "the runtime's limits, channels, threadblocks, semaphores set up for nothing; across "
        "the files, sizes two files both claim (error) or none claims (warning)",
    .formats = reports::lint_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command lint_command;
const Command lint_command = definition;

}  // namespace phasecheck::cli
