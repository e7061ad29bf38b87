#pragma once
/// The data behind `phasecheck draw`'s pictures: something per row (a rank, a directed link) and
/// phase, streamed one phase at a time into at most max_cells x max_cells cells, so that a
/// picture of 4,096 ranks and 4,095 phases stays as small as one of 256.
///
/// Rows are binned up front (their count is known from the header): row_bin = ceil(rows /
/// max_cells) consecutive rows per cell. Phases are not known up front (a stream does not say how
/// many follow), so columns start one per phase and, when max_cells of them are full, every two
/// neighbours merge into one and the phases per column double. A column then always covers
/// phase_bin consecutive phases (the last one possibly fewer), and memory stays at max_cells^2
/// cells whatever the schedule's length.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace phasecheck::reports {

/// The default cells per side of `draw`'s pictures (docs/draw.md): one cell per rank and phase
/// up to 256 of each, bins above.
inline constexpr std::uint32_t kMaxGridCells = 256;
/// A cell's `detail` lists at most this many lines (then "... and N more").
inline constexpr std::uint32_t kMaxDetailLines = 6;

/// What one cell summarises over the rows and phases it covers.
struct GridCell {
  std::uint64_t busy = 0;   ///< (row, phase) pairs with anything in them
  std::uint64_t items = 0;  ///< things counted: transfers sent, loaded links
  std::uint64_t sum = 0;    ///< the sum of their values: partner distances, loads
  std::uint64_t max = 0;    ///< the largest value
  /// At full resolution only (one row, one phase): what the cell holds, a line per item, at
  /// most kMaxDetailLines; `unlisted` counts the lines left out.
  std::string detail;
  std::uint64_t unlisted = 0;
  /// Appends a line to `detail`, or counts it in `unlisted` when kMaxDetailLines are there.
  void describe(const std::string& line);
  friend bool operator==(const GridCell&, const GridCell&) = default;
};

class BinnedGrid {
 public:
  /// `rows` >= 1 and `max_cells` >= 2 and even (InputError otherwise).
  BinnedGrid(std::uint64_t rows, std::uint32_t max_cells = kMaxGridCells);

  /// Starts the next phase (labelled `label`): its cells are cell(row) until the next call.
  void start_phase(const std::string& label);
  /// The current phase's cell holding `row` (< rows()). Precondition: start_phase was called.
  GridCell& cell(std::uint64_t row) { return columns_.back()[row / row_bin_]; }

  std::uint64_t rows() const { return rows_; }
  std::uint64_t row_bin() const { return row_bin_; }
  std::uint64_t row_bins() const { return (rows_ + row_bin_ - 1) / row_bin_; }
  std::uint64_t phases() const { return phases_; }
  std::uint64_t phase_bin() const { return phase_bin_; }
  /// One cell per row and phase: cells carry their detail and columns their phase's label.
  bool full_resolution() const { return row_bin_ == 1 && phase_bin_ == 1; }
  /// One vector of row_bins() cells per column.
  const std::vector<std::vector<GridCell>>& columns() const { return columns_; }
  /// At full resolution, the label of each column's phase; empty otherwise.
  const std::vector<std::string>& labels() const { return labels_; }
  /// The first and last row of row bin `r`, and the first and last phase of column `c`.
  std::pair<std::uint64_t, std::uint64_t> rows_of(std::uint64_t r) const;
  std::pair<std::uint64_t, std::uint64_t> phases_of(std::uint64_t c) const;

  friend bool operator==(const BinnedGrid&, const BinnedGrid&) = default;

 private:
  std::uint64_t rows_, row_bin_;
  std::uint32_t max_cells_;
  std::uint64_t phases_ = 0, phase_bin_ = 1;
  std::vector<std::vector<GridCell>> columns_;
  std::vector<std::string> labels_;
};

std::ostream& operator<<(std::ostream& os, const GridCell& c);
/// "binned grid: 64 rows x 63 phases in 64 x 63 cells (1 row x 1 phase each)".
std::ostream& operator<<(std::ostream& os, const BinnedGrid& g);

/// "0" or "0-7": a range of rows or phases as captions and titles write it.
std::string span_text(std::pair<std::uint64_t, std::uint64_t> span);

}  // namespace phasecheck::reports
