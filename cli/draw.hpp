#pragma once
/// `verify --svg` (cli/draw.cpp, docs/draw.md): the picture of a failed check, drawn as
/// `phasecheck draw` draws schedules.

#include <iosfwd>
#include <string>
#include <vector>

#include "core/schedule.hpp"
#include "verify/report.hpp"

namespace phasecheck::cli {

/// `verify --svg FILE`: the picture of the report's first drawable failure
/// (report/counterexample_svg.hpp), its phase read again from `schedule` (unless that is
/// standard input). When there is nothing to draw (every check passes, or no failure lies in a
/// phase), writes no file and says why on `err`. `inputs`: the files the output must not be.
void draw_failure(const std::string& svg, const verify::Report& report,
                  const ScheduleHeader& header, const std::string& schedule,
                  const std::vector<std::string>& inputs, std::ostream& err);

}  // namespace phasecheck::cli
