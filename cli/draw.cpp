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
#include "report/link_heatmap.hpp"
#include "report/partner_grid.hpp"

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

/// "linear (alltoall) on tree(machines=6, switches=4)  [examples/faraj-yuan-fig1/linear.json]".
std::string picture_title(const ScheduleHeader& h, const std::string& source) {
  return h.algorithm + " (" + std::string(to_string(h.collective)) + ") on " +
         describe(h.topology) + "  [" + source + "]";
}

/// Reads `path` into a picture's data made from its header by `make` (InputError messages start
/// with the source).
template <class Data, class Make>
std::optional<Data> gather(const std::string& path, ScheduleHeader& header, Make&& make) {
  const std::string source = input_name(path);
  std::optional<Data> data;
  pipeline::read_schedule_file(
      path,
      [&](const ScheduleHeader& h) {
        header = h;
        with_source(source, [&] { make(data, header); });
      },
      [&](const Phase& p) { with_source(source, [&] { data->consume(p); }); });
  return data;
}

/// The phase grid (report/partner_grid.hpp) or, with --links, the link-load heat map
/// (report/link_heatmap.hpp) of a schedule, streamed. Exit 0 when written; InputError (exit 2)
/// for bad input and for --links on a model that does not route. A line on `out` says what was
/// drawn, unless the picture itself goes there.
int run(const Options& options, const Streams& streams) {
  check_output(options.output, {options.schedule});
  const std::string source = input_name(options.schedule);
  ScheduleHeader header;
  std::string svg, summary;
  if (options.links) {
    const auto grid = gather<reports::LinkLoadGrid>(
        options.schedule, header, [](auto& data, const ScheduleHeader& h) {
          with_source("draw --links needs a routed machine, whose links carry the load",
                      [&] { data.emplace(h.topology); });
        });
    svg = reports::link_heatmap_svg(*grid, picture_title(header, source));
    const auto bottleneck = grid->bottleneck();
    summary =
        "link loads of " + std::to_string(grid->totals().size()) + " directed links x " +
        std::to_string(grid->grid().phases()) + " phases; " +
        (bottleneck ? "bottleneck link " + text_escape(link_name(header.topology, *bottleneck)) +
                          " (load " + std::to_string(grid->totals()[*bottleneck]) + ")"
                    : "no link carries anything");
  } else {
    const auto grid = gather<reports::PartnerGrid>(
        options.schedule, header, [](auto& data, const ScheduleHeader& h) { data.emplace(h); });
    svg = reports::partner_grid_svg(*grid, picture_title(header, source));
    const reports::BinnedGrid& bins = grid->grid();
    summary =
        std::to_string(bins.rows()) + " ranks x " + std::to_string(bins.phases()) + " phases in " +
        std::to_string(bins.row_bins()) + " x " + std::to_string(bins.columns().size()) +
        (bins.full_resolution() ? " cells, one per rank and phase"
                                : " cells of " + std::to_string(bins.row_bin()) + " ranks x " +
                                      std::to_string(bins.phase_bin()) + " phases");
  }
  write_output(options.output, [&](std::ostream& os) { os << svg; }, {options.schedule});
  if (options.output != "-") streams.out << "draw: " << options.output << ": " << summary << "\n";
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
