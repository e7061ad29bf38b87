#pragma once
/// `phasecheck draw SCHEDULE`: the phase table as a picture. Columns are phases, rows are ranks
/// as senders; a cell's hue is the partner distance (dst - src mod p) of what the rank sends in
/// that phase, so a shift schedule is one colour per column and a linear schedule a diagonal
/// rainbow. Idle cells are grey. Each cell's hover title names the phase, the rank and its
/// transfers (src -> dst and blocks).
///
/// Above kMaxGridCells ranks or phases the cells are bins (report/binned_grid.hpp): a cell covers
/// a block of ranks and phases, its hue is the mean partner distance of the sends in it and its
/// lightness the busy fraction (paler: fewer of its rank-phase pairs send); the caption says how
/// many ranks and phases one cell covers. The schedule is streamed: memory is one cell per bin
/// and one counter per rank, never the transfers.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/schedule.hpp"
#include "report/binned_grid.hpp"

namespace phasecheck::reports {

class PartnerGrid {
 public:
  /// `max_cells`: cells per side at most (even, >= 2).
  explicit PartnerGrid(const ScheduleHeader& header, std::uint32_t max_cells = kMaxGridCells);
  /// O(transfers of the phase). Throws InputError naming the phase and transfer when a rank does
  /// not exist (the readers refuse such files first).
  void consume(const Phase& phase);
  PhaseSink sink() {
    return [this](const Phase& p) { consume(p); };
  }
  Rank ranks() const { return ranks_; }
  const BinnedGrid& grid() const { return grid_; }

 private:
  Rank ranks_;
  BinnedGrid grid_;
  std::vector<std::uint64_t> sent_;  // per rank: 1 + the last phase it sent in
};

/// The picture: `title` on top, a caption saying what one cell covers and what its colour means,
/// the grid with phase and rank axes, and a legend of distances. Cells are `<rect
/// class="cell">` with a `<title>`, row by row. Deterministic.
std::string partner_grid_svg(const PartnerGrid& grid, std::string_view title);

}  // namespace phasecheck::reports
