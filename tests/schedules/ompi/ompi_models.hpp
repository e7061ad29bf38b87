#pragma once
// What the tests of the Open MPI models (schedules/ompi/) share: generating a row's program and
// table, rendering the table's messages in order, verifying, and planting an off-by-one.

#include <doctest/doctest.h>

#include <functional>
#include <string>

#include "core/buffer_lowering.hpp"
#include "core/error.hpp"
#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::testing::ompi {

inline Parameters with(std::initializer_list<std::pair<const char*, std::string>> values) {
  Parameters p;
  for (const auto& [key, value] : values) p.set(key, value);
  return p;
}

inline ScheduleHeader header_of(std::string_view name, Rank p, Parameters parameters = {}) {
  return schedules::make_header(schedules::require_algorithm(name), FullyConnected(p, 1),
                                std::move(parameters));
}

inline Schedule program_of(std::string_view name, Rank p, Parameters parameters = {}) {
  return schedules::generate_program(schedules::require_algorithm(name),
                                     header_of(name, p, std::move(parameters)));
}

/// The registered table, each phase "src -> dst [blocks]; ..." (describe_transfer), phases joined
/// by " | ", an empty phase (local copies only) as "-".
inline std::string table_text(std::string_view name, Rank p, Parameters parameters = {}) {
  const Schedule s = schedules::generate(schedules::require_algorithm(name), FullyConnected(p, 1),
                                         std::move(parameters));
  std::string out;
  for (const Phase& phase : s.phases) {
    out += out.empty() ? "" : " | ";
    if (phase.empty()) out += "-";
    for (std::size_t t = 0; t < phase.size(); ++t)
      out += (t ? "; " : "") + describe_transfer(phase, phase[t], s.header.collective);
  }
  return out;
}

inline std::string failures(const verify::Report& r) {
  std::string s;
  for (const auto& c : r.checks)
    if (c.verdict != Verdict::pass) s += std::string(c.name()) + ": " + c.summary + "; ";
  return s;
}

inline verify::Report verify_schedule(const Schedule& s) {
  return verify::verify(s, s.header.topology, schedules::claims_for(s.header));
}

/// The row's table and its program for `p` deliver, meet the claims (phase count, C2, requests)
/// and, the program, place every chunk; on the one-port machine each is contention-free when the
/// row claims so. Returns how many schedules it verified.
inline int check_verifies(std::string_view name, Rank p, Parameters parameters = {}) {
  const auto& a = schedules::require_algorithm(name);
  const Schedule table = schedules::generate(a, FullyConnected(p, 1), parameters);
  const Schedule program = program_of(name, p, parameters);
  int runs = 0;
  for (const Schedule* s : {&table, &program}) {
    const verify::Report r = verify_schedule(*s);
    INFO(name << " p = " << p << (s == &program ? " program" : " table"));
    INFO(failures(r));
    CHECK(r.passed(CheckId::claims));
    if (a.contention_free_on(s->header, s->header.topology)) CHECK(r.passed(CheckId::contention));
    CHECK(r.passed(CheckId::delivery));
    if (s == &program) CHECK(r.passed(CheckId::placement));
    if (schedules::claims_for(s->header).max_requests) CHECK(r.passed(CheckId::requests));
    ++runs;
  }
  return runs;
}

/// The program with the first send of `rank` in phase `phase` sent to the next rank (a partner off
/// by one) or, with `offset`, landing one slot further: verification must fail.
inline Schedule off_by_one(Schedule s, std::size_t phase, Rank rank, bool offset) {
  REQUIRE(phase < s.phases.size());
  Phase& target = s.phases[phase];
  Phase broken(target.label());
  bool changed = false;
  const Rank p = s.header.ranks();
  for (BufferOp op : target.ops()) {
    if (!changed && op.src == rank && !op.local()) {
      if (offset)
        op.to.index = (op.to.index + 1) % p;
      else
        op.dst = (op.dst + 1) % p == op.src ? (op.dst + 2) % p : (op.dst + 1) % p;
      changed = true;
    }
    broken.add(op);
  }
  REQUIRE(changed);
  target = std::move(broken);
  return s;
}

/// The mutant fails a correctness check (delivery or placement), naming a problem.
inline void check_caught(const Schedule& mutant) {
  const verify::Report r = verify_schedule(mutant);
  CHECK(r.verdict() == Verdict::fail);
  CHECK((!r.passed(CheckId::delivery) || !r.passed(CheckId::placement)));
}

/// The InputError message of generating `name` on `p` ranks.
inline std::string refusal(std::string_view name, Rank p, Parameters parameters = {}) {
  try {
    (void)program_of(name, p, std::move(parameters));
  } catch (const InputError& e) {
    return e.what();
  }
  FAIL("no refusal of " << name << " at p = " << p);
  return {};
}

}  // namespace phasecheck::testing::ompi
