// All-to-all personalized communication on a ring (Grama et al., Section 4.5.1, Fig. 4.18,
// Equation 4.7). Every node sends its p - 1 blocks as one consolidated message to its neighbour;
// each node keeps the block meant for it and forwards the rest, so the message shrinks by one
// block per step, for p - 1 steps: T = (t_s + t_w m p / 2)(p - 1). This is optimal: the traffic
// m (p - 1) p/2 words per node over p links gives t_w m (p - 1) p / 2.
// The bidirectional variant (the remark after Fig. 4.18) sends each block the shorter way round.

#include "core/error.hpp"
#include "schedules/collective_parameter.hpp"
#include "schedules/grama.hpp"
#include "schedules/line.hpp"

namespace phasecheck::schedules {
namespace {

constexpr ParameterSpec kBidirectional{
    "bidirectional", Boolean{}, Fixed{"false"},
    "send every block the shorter way round (the remark after Fig. 4.18)"};
constexpr ParameterSpec kParameters[] = {kCollective, kBidirectional};

}  // namespace

std::span<const ParameterSpec> RingOptions::parameters() { return kParameters; }

RingOptions RingOptions::from(const ScheduleHeader& header) {
  check_parameters(header.parameters, kParameters, header.ranks(), "ring");
  return {header.ranks(), header.collective, read_bool(header.parameters, kBidirectional)};
}

namespace {

detail::LineRouting routing(const RingOptions& o) {
  return o.bidirectional ? detail::LineRouting::shortest : detail::LineRouting::forward;
}

}  // namespace

void ring(const RingOptions& o, const PhaseSink& out) {
  std::vector<Rank> line(o.ranks);
  for (Rank i = 0; i < o.ranks; ++i) line[i] = i;
  detail::line_alltoall(
      {line}, routing(o),
      [&](std::size_t, Rank from, Rank to, std::vector<Block>& blocks) {
        blocks.push_back(direct_block(o.collective, from, to));
      },
      [](std::size_t s) { return "step " + std::to_string(s); }, "", out);
}

Claims ring_claims(const RingOptions& o) {
  const Rank p = o.ranks;
  const auto steps = detail::line_steps(p, routing(o));
  // After step s node j has the blocks of the s nodes behind it (and, bidirectional, of those
  // ahead of it that come the other way): its delivery count is exactly that many.
  const Rank ahead = o.bidirectional ? static_cast<Rank>(p / 2) : p - 1;  // + direction reach
  const Rank behind = p - 1 - ahead;                                      // - direction reach
  Invariant received{
      o.bidirectional ? "after step s every node has received min(s, floor(p/2)) + min(s, "
                        "ceil(p/2) - 1) blocks"
                      : "after step s every node has received exactly s blocks destined to it",
      [p, ahead, behind](const Boundary& at, const DataView& data) -> Finding {
        const auto s = static_cast<Rank>(at.phase + 1);
        const Rank expected = std::min(s, ahead) + std::min(s, behind);
        for (Rank j = 0; j < p; ++j)
          if (data.delivered_count(j) != expected)
            return Finding::broken("node " + std::to_string(j) + " has received " +
                                   std::to_string(data.delivered_count(j)) + " blocks after step " +
                                   std::to_string(s) + ", not " + std::to_string(expected));
        return Finding::holds();
      }};
  Claims c{
      .invariants = {std::move(received)},
      .phases = PhaseClaim::exactly(steps, o.bidirectional ? "floor(p/2) steps" : "p - 1 steps")};
  // The book's figures are for the personalized exchange, every cluster the same way round.
  if (!o.bidirectional && o.collective == Collective::alltoall)
    c.cost = {{"Eq. 4.7: (t_s + t_w m p/2)(p - 1)",
               [p](double ts, double tw, double m) { return (ts + tw * m * p / 2) * (p - 1); }},
              {"Section 4.5.1 traffic bound, all messages one way round: t_w m (p - 1) p/2",
               [p](double, double tw, double m) { return tw * m * (p - 1) * p / 2; },
               CostFormula::Kind::lower_bound}};
  return c;
}

}  // namespace phasecheck::schedules
