#pragma once
// Small builders shared by the tests: hand-made phases and schedules, in a line each.

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "core/schedule.hpp"

namespace phasecheck::testing {

/// A transfer src -> dst with explicit blocks (empty list: the direct message [src,dst]).
struct T {
  Rank src, dst;
  std::vector<Block> blocks = {};
};

inline Phase phase(std::string label, std::initializer_list<T> transfers,
                   Collective c = Collective::alltoall) {
  Phase p(std::move(label));
  for (const T& t : transfers) {
    if (t.blocks.empty())
      p.add(t.src, t.dst, direct_block(c, t.src, t.dst));
    else
      p.add(t.src, t.dst, t.blocks);
  }
  return p;
}

inline ScheduleHeader header(Topology t, Collective c = Collective::alltoall,
                             std::string algorithm = "hand-made") {
  ScheduleHeader h;
  h.algorithm = std::move(algorithm);
  h.collective = c;
  h.topology = std::move(t);
  return h;
}

inline Tree fig1_tree() {
  return Tree({"n0", "n1", "n2", "n3", "n4", "n5"}, {"s0", "s1", "s2", "s3"},
              {{"n0", "s0"},
               {"n1", "s0"},
               {"n2", "s0"},
               {"s0", "s1"},
               {"s1", "s2"},
               {"s1", "s3"},
               {"n3", "s3"},
               {"n4", "s3"},
               {"n5", "s1"}});
}

}  // namespace phasecheck::testing
