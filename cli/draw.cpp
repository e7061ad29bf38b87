// `phasecheck draw` and `verify --svg`: a schedule streamed into the data of a picture
// (report/partner_grid.hpp, report/link_heatmap.hpp), or a failed check's counterexample
// (report/counterexample_svg.hpp), written as SVG through write_output.
#include "cli/draw.hpp"

#include <optional>
#include <ostream>

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

}  // namespace

int draw(const DrawArgs& args, std::ostream& out) {
  check_output(args.output, {args.schedule});
  const std::string source = input_name(args.schedule);
  ScheduleHeader header;
  std::string svg, summary;
  if (args.links) {
    const auto grid = gather<reports::LinkLoadGrid>(
        args.schedule, header, [](auto& data, const ScheduleHeader& h) {
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
        args.schedule, header, [](auto& data, const ScheduleHeader& h) { data.emplace(h); });
    svg = reports::partner_grid_svg(*grid, picture_title(header, source));
    const reports::BinnedGrid& g = grid->grid();
    summary = std::to_string(g.rows()) + " ranks x " + std::to_string(g.phases()) + " phases in " +
              std::to_string(g.row_bins()) + " x " + std::to_string(g.columns().size()) +
              (g.full_resolution() ? " cells, one per rank and phase"
                                   : " cells of " + std::to_string(g.row_bin()) + " ranks x " +
                                         std::to_string(g.phase_bin()) + " phases");
  }
  write_output(args.output, [&](std::ostream& os) { os << svg; }, {args.schedule});
  if (args.output != "-") out << "draw: " << args.output << ": " << summary << "\n";
  return 0;
}

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
