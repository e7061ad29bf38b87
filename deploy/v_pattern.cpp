#include "deploy/v_pattern.hpp"

namespace phasecheck::deploy {

namespace {

constexpr std::string_view kServed =
    "only patterns that send every message whole and straight to its destination in an order "
    "the counts do not decide are deployed (linear-v, pairwise-v, scattered-v)";

}  // namespace

std::optional<std::string> count_dependence(const Schedule& v) {
  const ScheduleHeader& h = v.header;
  const Traffic& traffic = *h.traffic;
  if (h.buffers)
    return "a buffer program (format 3) of an alltoallv is not deployed: its slots are cut from "
           "one matrix's counts; " +
           std::string(kServed);
  if (h.piece_elements != 0 || h.parts != 1)
    return "its messages are cut into pieces of " + std::to_string(h.piece_elements) +
           " elements, so which piece travels when depends on the counts (bvn needs the whole "
           "matrix and is not deployed); " +
           std::string(kServed);
  for (std::size_t ph = 0; ph < v.phases.size(); ++ph) {
    const Phase& phase = v.phases[ph];
    for (const Transfer& t : phase.transfers()) {
      const auto blocks = phase.blocks(t);
      if (blocks.size() == 1 && blocks[0].origin == t.src && blocks[0].dest == t.dst) continue;
      // Name a block that is not the transfer's own message (else the duplicate of it).
      Block other = blocks[blocks.size() - 1];
      for (const Block& b : blocks)
        if (b.origin != t.src || b.dest != t.dst) {
          other = b;
          break;
        }
      return "phase " + std::to_string(ph) + ": " + describe_transfer(phase, t, h.collective) +
             " carries block " + to_string(other) +
             ", not exactly its own message: a message relayed or aggregated (as the two-stage "
             "variant does) moves in amounts the counts decide, and needs the whole matrix; " +
             std::string(kServed);
    }
  }
  for (Rank s = 0; s < traffic.ranks; ++s)
    for (Rank d = 0; d < traffic.ranks; ++d)
      if (s != d && traffic.count(s, d) == 0)
        return "counts[" + std::to_string(s) + "][" + std::to_string(d) +
               "] is 0, so the schedule does not say in which phase the message " +
               std::to_string(s) + " -> " + std::to_string(d) +
               " travels when a call has one: generate the schedule to deploy from a matrix "
               "whose off-diagonal counts are all non-zero (the pattern does not depend on "
               "them)";
  return std::nullopt;
}

Schedule uniform_pattern(const Schedule& v) {
  Schedule pattern;
  pattern.header = v.header;
  pattern.header.traffic = SharedTraffic();
  pattern.header.piece_elements = 0;
  pattern.phases = v.phases;
  return pattern;
}

Claims pattern_claims(Claims v) {
  v.cost_bytes.reset();
  return v;
}

}  // namespace phasecheck::deploy
