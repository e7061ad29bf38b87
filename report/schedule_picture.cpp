#include "report/schedule_picture.hpp"

#include "core/escape.hpp"
#include "core/files.hpp"

namespace phasecheck::reports {
namespace {

/// "linear (alltoall) on tree(machines=6, switches=4)  [examples/faraj-yuan-fig1/linear.json]".
std::string picture_title(const ScheduleHeader& h, const std::string& source) {
  return h.algorithm + " (" + std::string(to_string(h.collective)) + ") on " +
         describe(h.topology) + "  [" + source + "]";
}

}  // namespace

SchedulePicture::SchedulePicture(const ScheduleHeader& header, bool links) : header_(header) {
  if (links)
    with_source("draw --links needs a routed machine, whose links carry the load",
                [&] { links_.emplace(header_.topology); });
  else
    grid_.emplace(header_);
}

void SchedulePicture::consume(const Phase& phase) {
  if (links_)
    links_->consume(phase);
  else
    grid_->consume(phase);
}

Picture SchedulePicture::finish(const std::string& source) const {
  if (links_) {
    const auto bottleneck = links_->bottleneck();
    return {link_heatmap_svg(*links_, picture_title(header_, source)),
            "link loads of " + std::to_string(links_->totals().size()) + " directed links x " +
                std::to_string(links_->grid().phases()) + " phases; " +
                (bottleneck ? "bottleneck link " +
                                  text_escape(link_name(header_.topology, *bottleneck)) +
                                  " (load " + std::to_string(links_->totals()[*bottleneck]) + ")"
                            : "no link carries anything")};
  }
  const BinnedGrid& bins = grid_->grid();
  return {partner_grid_svg(*grid_, picture_title(header_, source)),
          std::to_string(bins.rows()) + " ranks x " + std::to_string(bins.phases()) + " phases in " +
              std::to_string(bins.row_bins()) + " x " + std::to_string(bins.columns().size()) +
              (bins.full_resolution()
                   ? " cells, one per rank and phase"
                   : " cells of " + std::to_string(bins.row_bin()) + " ranks x " +
                         std::to_string(bins.phase_bin()) + " phases")};
}

}  // namespace phasecheck::reports
