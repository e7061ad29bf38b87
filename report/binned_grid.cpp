#include "report/binned_grid.hpp"

#include <algorithm>
#include <ostream>

#include "core/error.hpp"

namespace phasecheck::reports {

void GridCell::describe(const std::string& line) {
  const auto lines = detail.empty() ? 0 : std::count(detail.begin(), detail.end(), '\n') + 1;
  if (lines >= kMaxDetailLines) {
    ++unlisted;
    return;
  }
  if (!detail.empty()) detail += '\n';
  detail += line;
}

BinnedGrid::BinnedGrid(std::uint64_t rows, std::uint32_t max_cells)
    : rows_(rows), row_bin_(1), max_cells_(max_cells) {
  if (rows == 0) throw InputError("a picture needs at least one row");
  if (max_cells < 2 || max_cells % 2 != 0)
    throw InputError("a picture's cells per side must be even and at least 2, not " +
                     std::to_string(max_cells));
  row_bin_ = (rows + max_cells - 1) / max_cells;
}

void BinnedGrid::start_phase(const std::string& label) {
  if (phases_ % phase_bin_ == 0) {  // this phase opens a column
    if (columns_.size() == max_cells_) {
      // Full: every two neighbours become one column of twice the phases. The details and
      // labels of single phases go: a cell now stands for several.
      for (std::size_t c = 0; c < columns_.size() / 2; ++c) {
        std::vector<GridCell> merged = std::move(columns_[2 * c]);
        const std::vector<GridCell>& next = columns_[2 * c + 1];
        for (std::size_t r = 0; r < merged.size(); ++r) {
          merged[r].busy += next[r].busy;
          merged[r].items += next[r].items;
          merged[r].sum += next[r].sum;
          merged[r].max = std::max(merged[r].max, next[r].max);
          merged[r].detail.clear();
          merged[r].unlisted = 0;
        }
        columns_[c] = std::move(merged);
      }
      columns_.resize(columns_.size() / 2);
      phase_bin_ *= 2;
      labels_.clear();
    }
    columns_.emplace_back(row_bins());
  }
  if (full_resolution()) labels_.push_back(label);
  ++phases_;
}

std::pair<std::uint64_t, std::uint64_t> BinnedGrid::rows_of(std::uint64_t r) const {
  return {r * row_bin_, std::min(rows_, (r + 1) * row_bin_) - 1};
}

std::pair<std::uint64_t, std::uint64_t> BinnedGrid::phases_of(std::uint64_t c) const {
  return {c * phase_bin_, std::min(phases_, (c + 1) * phase_bin_) - 1};
}

std::ostream& operator<<(std::ostream& os, const GridCell& c) {
  return os << "{busy " << c.busy << ", items " << c.items << ", sum " << c.sum << ", max " << c.max
            << "}";
}

std::ostream& operator<<(std::ostream& os, const BinnedGrid& g) {
  return os << "binned grid: " << g.rows() << " rows x " << g.phases() << " phases in "
            << g.row_bins() << " x " << g.columns().size() << " cells (" << g.row_bin()
            << " rows x " << g.phase_bin() << " phases each)";
}

std::string span_text(std::pair<std::uint64_t, std::uint64_t> span) {
  return span.first == span.second ? std::to_string(span.first)
                                   : std::to_string(span.first) + "-" + std::to_string(span.second);
}

}  // namespace phasecheck::reports
