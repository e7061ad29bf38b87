#pragma once
/// `phasecheck draw` and `verify --svg` (cli/draw.cpp, docs/draw.md): pictures of schedules.

#include <iosfwd>
#include <string>
#include <vector>

#include "core/schedule.hpp"
#include "verify/report.hpp"

namespace phasecheck::cli {

struct DrawArgs {
  std::string schedule;  ///< any schedule file `verify` reads; "-": standard input
  std::string output;    ///< the SVG; "-": standard output
  bool links = false;    ///< the link-load heat map instead of the phase grid
};
/// The phase grid (report/partner_grid.hpp) or, with --links, the link-load heat map
/// (report/link_heatmap.hpp) of a schedule, streamed. Exit 0 when written; InputError (exit 2)
/// for bad input and for --links on a model that does not route. A line on `out` says what was
/// drawn, unless the picture itself goes there.
int draw(const DrawArgs& args, std::ostream& out);

/// `verify --svg FILE`: the picture of the report's first drawable failure
/// (report/counterexample_svg.hpp), its phase read again from `schedule` (unless that is
/// standard input). When there is nothing to draw (every check passes, or no failure lies in a
/// phase), writes no file and says why on `err`. `inputs`: the files the output must not be.
void draw_failure(const std::string& svg, const verify::Report& report,
                  const ScheduleHeader& header, const std::string& schedule,
                  const std::vector<std::string>& inputs, std::ostream& err);

}  // namespace phasecheck::cli
