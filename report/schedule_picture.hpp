#pragma once
/// `phasecheck draw` and the Python module's `draw`: a schedule streamed into its picture, the
/// phase grid (report/partner_grid.hpp) or with `links` the link-load heat map of a routed machine
/// (report/link_heatmap.hpp), and the line that says what was drawn. Deterministic.

#include <optional>
#include <string>

#include "core/schedule.hpp"
#include "report/link_heatmap.hpp"
#include "report/partner_grid.hpp"

namespace phasecheck::reports {

struct Picture {
  std::string svg;
  /// "8 ranks x 7 phases in 8 x 7 cells, one per rank and phase", "link loads of ...".
  std::string summary;
};

class SchedulePicture {
 public:
  /// Throws InputError for `links` on a model that does not route, naming why.
  SchedulePicture(const ScheduleHeader& header, bool links);
  // The grids keep references into header_.
  SchedulePicture(const SchedulePicture&) = delete;
  SchedulePicture& operator=(const SchedulePicture&) = delete;
  /// The next phase (InputError naming the phase and transfer for a rank that does not exist).
  void consume(const Phase& phase);
  /// The picture, titled with the schedule's algorithm, machine and `source`.
  Picture finish(const std::string& source) const;

 private:
  ScheduleHeader header_;
  std::optional<PartnerGrid> grid_;
  std::optional<LinkLoadGrid> links_;
};

}  // namespace phasecheck::reports
