#pragma once
/// `phasecheck draw SCHEDULE --links`: the link-load heat map of a routed machine (tree, graph,
/// hypercube, mesh, ring). Rows are directed links, columns phases; a cell's colour is the load
/// the link carries in the phase as verify/congestion.hpp's CongestionMeter counts it (blocks per
/// unit of capacity): grey nothing, blue 1 (busy, no contention), yellow to dark red 2 up to the
/// schedule's peak (contention). Links that carry nothing in any phase are left out.
///
/// The bottleneck link is the most loaded over the schedule (the sum of its per-phase loads), the
/// lowest link id among equals; its row is outlined and named. Above kMaxGridCells links or
/// phases the cells are bins (report/binned_grid.hpp) and a cell shows the largest load in it.
/// Memory: one counter per directed link and one cell per bin, never the transfers.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/schedule.hpp"
#include "report/binned_grid.hpp"
#include "verify/congestion.hpp"

namespace phasecheck::reports {

class LinkLoadGrid {
 public:
  /// Throws InputError for a model that does not route (cluster, fully-connected), as
  /// CongestionMeter does. `model` must outlive the grid.
  explicit LinkLoadGrid(const Topology& model, std::uint32_t max_cells = kMaxGridCells);
  /// O(route lengths of the phase's transfers).
  void consume(const Phase& phase);
  PhaseSink sink() {
    return [this](const Phase& p) { consume(p); };
  }

  const Topology& model() const { return model_; }
  const BinnedGrid& grid() const { return grid_; }
  /// Per directed link: the sum of its per-phase loads over the schedule.
  const std::vector<std::uint64_t>& totals() const { return totals_; }
  /// The most loaded link over the schedule, the lowest id among equals; none when no link
  /// carried anything.
  std::optional<LinkId> bottleneck() const;
  /// The largest load of one link in one phase.
  std::uint64_t peak() const { return meter_.peak(); }

 private:
  const Topology& model_;
  verify::CongestionMeter meter_;
  BinnedGrid grid_;
  std::vector<std::uint64_t> totals_;
};

/// The picture: `title` on top, a caption saying what one cell covers and what its colour means,
/// the bottleneck named, the heat map (`<rect class="cell">` with a `<title>`, the bottleneck's
/// row outlined by a `<rect class="bottleneck">`) with link and phase axes, and a legend.
/// Deterministic.
std::string link_heatmap_svg(const LinkLoadGrid& grid, std::string_view title);

}  // namespace phasecheck::reports
