#pragma once
// Shared by the MPICH algorithm tests: a row's program and table for p ranks, its verification
// against its own claims, and the mutants (one op of the program changed: a partner or an offset
// off by one), which must fail.

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/buffer_lowering.hpp"
#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::mpich_test {

inline const schedules::Algorithm& row(std::string_view name) {
  const auto* a = schedules::find_algorithm(name);
  REQUIRE(a != nullptr);
  return *a;
}

inline Parameters parameters(std::initializer_list<std::pair<const char*, std::string>> values) {
  Parameters p;
  for (const auto& [key, value] : values) p.set(key, value);
  return p;
}

/// `ports` of the fully connected machine: as many as the algorithm sends at once, so that the
/// contention and bound checks judge it on the machine it is made for.
inline ScheduleHeader header_of(std::string_view name, Rank p, Parameters given = {},
                                Rank ports = 1) {
  return schedules::make_header(row(name), FullyConnected(p, ports), std::move(given));
}

inline Schedule program_of(std::string_view name, Rank p, Parameters given = {}, Rank ports = 1) {
  return schedules::generate_program(row(name), header_of(name, p, std::move(given), ports));
}

inline Schedule table_of_row(std::string_view name, Rank p, Parameters given = {}, Rank ports = 1) {
  return schedules::generate(row(name), FullyConnected(p, ports), std::move(given));
}

/// min(wanted, p - 1), at least 1: the ports an algorithm sending `wanted` messages at once uses.
inline Rank ports_for(Rank p, std::uint64_t wanted) {
  return static_cast<Rank>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(wanted, p - 1)));
}

inline verify::Report verify_with_claims(const Schedule& s) {
  return verify::verify(s, s.header.topology, row(s.header.algorithm).claims(s.header));
}

inline std::string failed(const verify::Report& r) {
  std::string s;
  for (const auto& c : r.checks)
    if (c.verdict != Verdict::pass) s += std::string(c.name()) + ": " + c.summary + "; ";
  return s;
}

/// The (src, dst) of every send of `phase` of a table, sorted.
inline std::vector<std::pair<Rank, Rank>> sends(const Phase& phase) {
  std::vector<std::pair<Rank, Rank>> out;
  for (const Transfer& t : phase.transfers())
    if (!t.local()) out.emplace_back(t.src, t.dst);
  std::sort(out.begin(), out.end());
  return out;
}

/// The ops of `rank` in `phase`.
inline std::vector<BufferOp> ops_of(const Phase& phase, Rank rank) {
  std::vector<BufferOp> out;
  for (const BufferOp& op : phase.ops())
    if (op.src == rank) out.push_back(op);
  return out;
}

/// Program and table of `name` on p ranks both verify with every claim met (placement for the
/// program; claims, delivery), and the table is the program's sends.
inline void check_row(std::string_view name, Rank p, Parameters given = {}, Rank ports = 1) {
  CAPTURE(name);
  CAPTURE(p);
  CAPTURE(ports);
  const Schedule program = program_of(name, p, given, ports);
  const verify::Report r = verify_with_claims(program);
  REQUIRE(!r.checks.empty());
  CHECK_MESSAGE(r.verdict() == Verdict::pass, failed(r));
  CHECK(r.passed(CheckId::delivery));
  CHECK(r.passed(CheckId::placement));
  CHECK(r.passed(CheckId::claims));
  const Schedule table = table_of_row(name, p, given, ports);
  const verify::Report t = verify_with_claims(table);
  CHECK_MESSAGE(t.verdict() == Verdict::pass, failed(t));
  CHECK(t.counts.phases == r.counts.phases);
  std::vector<Phase> derived;
  table_of(program, collect_into(derived));
  CHECK(derived == table.phases);
}

/// `program` with op `index` of phase `phase_index` changed by `edit`.
inline Schedule mutant(Schedule program, std::size_t phase_index, std::size_t index,
                       const std::function<void(BufferOp&)>& edit) {
  REQUIRE(phase_index < program.phases.size());
  Phase& phase = program.phases[phase_index];
  REQUIRE(index < phase.ops().size());
  Phase changed(phase.label());
  for (std::size_t i = 0; i < phase.ops().size(); ++i) {
    BufferOp op = phase.ops()[i];
    if (i == index) edit(op);
    changed.add(op);
  }
  phase = std::move(changed);
  return program;
}

/// The mutant fails verification on delivery or placement (not only on a claim).
inline void check_caught(const Schedule& broken) {
  const verify::Report r = verify_with_claims(broken);
  REQUIRE(!r.checks.empty());
  CHECK(r.verdict() == Verdict::fail);
  CHECK((!r.passed(CheckId::delivery) || !r.passed(CheckId::placement)));
}

}  // namespace phasecheck::mpich_test
