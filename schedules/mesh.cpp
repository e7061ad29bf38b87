// All-to-all personalized communication on a two-dimensional mesh (Grama et al., Section 4.5.2,
// Fig. 4.19, Equation 4.8). Each node groups its blocks by the column of their destination; the
// row phase runs the ring algorithm (Section 4.5.1) along every row with these clusters, so that
// afterwards every block is in its destination column; the column phase does the same along the
// columns, with clusters by destination row. On a sqrt(p) x sqrt(p) mesh:
// T = (2 t_s + t_w m p)(sqrt(p) - 1).
// Generalised here to r x c (the shape of the mesh topology): the row phase has c - 1 steps with
// clusters of r blocks, the column phase r - 1 steps with clusters of c blocks. Without
// wraparound the lines are linear arrays and every cluster travels toward its target (the same
// steps and transfer sizes as the ring, Equation 4.7 applies to both); with wraparound the ring
// algorithm goes one way round.

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "schedules/collective_parameter.hpp"
#include "schedules/grama.hpp"
#include "schedules/line.hpp"

namespace phasecheck::schedules {
namespace {

constexpr ParameterSpec kParameters[] = {kCollective};

}  // namespace

std::span<const ParameterSpec> MeshOptions::parameters() { return kParameters; }

MeshOptions MeshOptions::from(const ScheduleHeader& header) {
  check_parameters(header.parameters, kParameters, header.ranks(), "mesh");
  if (const auto* m = std::get_if<Mesh>(&header.topology))
    return {m->rows, m->cols, m->wraparound && m->rows > 2 && m->cols > 2, header.collective};
  const Rank p = header.ranks();
  const auto side = static_cast<std::uint32_t>(std::lround(std::sqrt(static_cast<double>(p))));
  if (side * side != p)
    throw InputError("mesh needs a mesh topology (rows x cols) or a square number of ranks, not " +
                     std::to_string(p));
  return {side, side, false, header.collective};
}

namespace {

detail::LineRouting line_routing(const MeshOptions& o) {
  return o.wraparound ? detail::LineRouting::forward : detail::LineRouting::linear;
}

}  // namespace

void mesh(const MeshOptions& o, const PhaseSink& out) {
  const std::uint32_t r = o.rows, c = o.cols;
  const auto rank = [c](std::uint32_t row, std::uint32_t col) { return row * c + col; };
  std::vector<std::vector<Rank>> rows(r, std::vector<Rank>(c)), cols(c, std::vector<Rank>(r));
  for (std::uint32_t y = 0; y < r; ++y)
    for (std::uint32_t x = 0; x < c; ++x) rows[y][x] = cols[x][y] = rank(y, x);

  // Row phase: the node at (y, x) sends, for destination column t, the blocks [(y, x), (any, t)].
  detail::line_alltoall(
      rows, line_routing(o),
      [&](std::size_t y, Rank x, Rank t, std::vector<Block>& blocks) {
        for (std::uint32_t dy = 0; dy < r; ++dy)
          blocks.push_back(
              direct_block(o.collective, rank(static_cast<std::uint32_t>(y), x), rank(dy, t)));
      },
      [](std::size_t s) { return "row phase, step " + std::to_string(s); }, ", end of row phase",
      out);
  // Column phase: the node at (y, x) now holds, from every node of its row, the blocks for
  // column x; for destination row t it sends [(y, any), (t, x)].
  detail::line_alltoall(
      cols, line_routing(o),
      [&](std::size_t x, Rank y, Rank t, std::vector<Block>& blocks) {
        for (std::uint32_t dx = 0; dx < c; ++dx)
          blocks.push_back(
              direct_block(o.collective, rank(y, dx), rank(t, static_cast<std::uint32_t>(x))));
      },
      [](std::size_t s) { return "column phase, step " + std::to_string(s); }, "", out);
}

Claims mesh_claims(const MeshOptions& o) {
  const std::uint32_t r = o.rows, c = o.cols;
  const std::size_t row_steps = detail::line_steps(c, line_routing(o));
  const std::size_t steps = row_steps + detail::line_steps(r, line_routing(o));
  Invariant in_column{
      "after the row phase every block is in its destination column",
      [r, c, row_steps, collective = o.collective](const Boundary& at,
                                                   const DataView& data) -> Finding {
        // At the last row step by position, not by label: a schedule cannot skip
        // the check by losing the label. (With one column there is no row phase:
        // check before anything.)
        if (at.phase + 1 != std::max<std::size_t>(row_steps, 1)) return Finding::not_applicable();
        for (Rank from = 0; from < r * c; ++from)
          for (Rank d = 0; d < r * c; ++d) {
            const Rank there = (from / c) * c + d % c;  // origin's row, destination's column
            const Block b = direct_block(collective, from, d);
            if (!data.holds(there, b))
              return Finding::broken("block " + to_string(b) + " is not at rank " +
                                     std::to_string(there) + " (row " + std::to_string(from / c) +
                                     ", column " + std::to_string(d % c) + ")");
          }
        return Finding::holds();
      }};
  Claims claims{.invariants = {std::move(in_column)},
                .phases = PhaseClaim::exactly(steps, "(cols - 1) + (rows - 1) steps")};
  const double rd = r, cd = c;
  if (o.collective == Collective::alltoall)
    claims.cost.push_back(
        {r == c ? "Eq. 4.8: (2 t_s + t_w m p)(sqrt(p) - 1)"
                : "Eq. 4.8 for r x c: (t_s + t_w m r c/2)(c - 1) + (t_s + t_w m c r/2)(r - 1)",
         [rd, cd](double ts, double tw, double m) {
           return (ts + tw * m * rd * cd / 2) * (cd - 1) + (ts + tw * m * cd * rd / 2) * (rd - 1);
         }});
  return claims;
}

}  // namespace phasecheck::schedules
