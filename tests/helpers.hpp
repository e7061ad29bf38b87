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

/// Format 3 in a line: slots, sends and local copies, phases of ops, programs.
inline Slot in(std::uint32_t i) { return {Buffer::input, i}; }
inline Slot out(std::uint32_t i) { return {Buffer::output, i}; }
inline Slot scr(std::uint32_t i) { return {Buffer::scratch, i}; }
inline BufferOp send(Rank src, Rank dst, Slot from, Slot to, std::uint32_t count = 1) {
  return {src, dst, from, to, count};
}
inline BufferOp copy(Rank rank, Slot from, Slot to, std::uint32_t count = 1) {
  return {rank, rank, from, to, count};
}
inline Phase ops(std::string label, std::initializer_list<BufferOp> list) {
  Phase p(std::move(label));
  for (const BufferOp& op : list) p.add(op);
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

/// A format-3 program on a fully connected machine of `ranks` ranks with `ports` ports.
inline Schedule program(Collective c, Rank ranks, BufferLayout layout, std::vector<Phase> phases,
                        Rank ports = 1) {
  Schedule s{header(FullyConnected(ranks, ports), c), std::move(phases)};
  s.header.parts = layout.chunks;
  s.header.buffers = layout;
  return s;
}

/// The direct alltoall over 3 ranks as a program: self copies, then shifts 1 and 2 received into
/// their final output slots.
inline Schedule direct_program_3() {
  const BufferLayout layout{1, false, 3, 3, 0};
  std::vector<Phase> phases;
  phases.push_back(ops("shift 1", {copy(0, in(0), out(0)), copy(1, in(1), out(1)),
                                   copy(2, in(2), out(2)), send(0, 1, in(1), out(0)),
                                   send(1, 2, in(2), out(1)), send(2, 0, in(0), out(2))}));
  phases.push_back(ops("shift 2", {send(0, 2, in(2), out(0)), send(1, 0, in(0), out(1)),
                                   send(2, 1, in(1), out(2))}));
  return program(Collective::alltoall, 3, layout, std::move(phases));
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
