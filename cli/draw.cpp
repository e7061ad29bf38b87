// `phasecheck draw` and `verify --svg`: a schedule streamed into the data of a picture
// (report/partner_grid.hpp, report/link_heatmap.hpp), or a failed check's counterexample
// (report/counterexample_svg.hpp), written as SVG through write_output.
#include "cli/draw.hpp"

#include <optional>
#include <ostream>

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/escape.hpp"
#include "core/files.hpp"
#include "io/json.hpp"
#include "pipeline/read_schedule.hpp"
#include "report/counterexample_svg.hpp"
#include "report/schedule_picture.hpp"

namespace phasecheck::cli {

namespace {

struct Options {
  std::string schedule;  ///< any schedule file `verify` reads; "-": standard input
  std::string output;    ///< the SVG; "-": standard output
  bool links = false;    ///< the link-load heat map instead of the phase grid
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("schedule", options.schedule, "Schedule file (- for standard input)")->required();
  app.add_option("-o,--output", options.output, "The SVG file (- for standard output)")->required();
  app.add_flag("--links", options.links,
               "The link-load heat map (directed links x phases) instead of the phase grid");
}

/// The phase grid (report/partner_grid.hpp) or, with --links, the link-load heat map
/// (report/link_heatmap.hpp) of a schedule, streamed. Exit 0 when written; InputError (exit 2)
/// for bad input and for --links on a model that does not route. A line on `out` says what was
/// drawn, unless the picture itself goes there.
int run(const Options& options, const Streams& streams) {
  check_output(options.output, {options.schedule});
  const std::string source = input_name(options.schedule);
  std::optional<reports::SchedulePicture> picture;
  pipeline::read_schedule_file(
      options.schedule,
      [&](const ScheduleHeader& h) {
        with_source(source, [&] { picture.emplace(h, options.links); });
      },
      [&](const Phase& p) { with_source(source, [&] { picture->consume(p); }); });
  const reports::Picture drawn = picture->finish(source);
  write_output(options.output, [&](std::ostream& os) { os << drawn.svg; }, {options.schedule});
  if (options.output != "-")
    streams.out << "draw: " << options.output << ": " << drawn.summary << "\n";
  return 0;
}

constexpr CommandDefinition<Options> definition{
    .name = "draw",
    .summary =
        "Draw a schedule as SVG: the phase table as a grid (ranks x phases, coloured by "
        "partner distance; binned above 256), or with --links the link-load heat map of a "
        "routed machine with its bottleneck link (docs/draw.md)",
    .formats = {},
    .add_options = add_options,
    .run = run,
};

}  // namespace

extern const Command draw_command;
const Command draw_command = definition;

void draw_failure(const std::string& svg, const verify::Report& report,
                  const ScheduleHeader& header, const std::string& schedule,
                  const std::vector<std::string>& inputs, std::ostream& err) {
  const verify::CheckResult* failure = reports::drawable_failure(report);
  if (!failure) {
    const Verdict verdict = report.verdict();
    err << "phasecheck: note: verify --svg: "
        << (verdict == Verdict::pass ? "every check passes, so there is no counterexample to draw"
            : verdict == Verdict::fail
                ? "no failed check is located in a phase's transfers (a block that never "
                  "arrives, a buffer slot), so there is nothing to draw"
                : "no check failed (" + std::string(to_string(verdict)) +
                      "), so there is no counterexample to draw")
        << "; " << svg << " was not written\n";
    return;
  }
  // The offending phase again, for the transfers around the conflict: one phase is kept.
  std::optional<Phase> phase;
  if (schedule != "-") {
    const std::size_t wanted = *failure->counterexample->phase;
    std::size_t index = 0;
    pipeline::read_schedule_file(
        schedule, [](const ScheduleHeader&) {},
        [&](const Phase& p) {
          if (index++ == wanted) phase = p;
        });
  }
  const std::string picture = reports::counterexample_svg(
      *failure, report, header.ranks(), phase ? &*phase : nullptr, input_name(schedule));
  write_output(svg, [&](std::ostream& os) { os << picture; }, inputs);
}

}  // namespace phasecheck::cli
