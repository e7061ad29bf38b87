#pragma once
// Shared by the tests of schedules/nccl/: generate a registered row and verify it with its claims.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::testing::nccl {

inline const schedules::Algorithm& row(std::string_view name) {
  const auto* a = schedules::find_algorithm(name);
  REQUIRE(a != nullptr);
  return *a;
}

/// The row's table for `model` and `params`, verified with its claims.
inline verify::Report verify_row(std::string_view name, const Topology& model,
                                 Parameters params = {}) {
  const Schedule s = schedules::generate(row(name), model, std::move(params));
  return verify::verify(s, model, row(name).claims(s.header));
}

/// The row's buffer program, verified with its claims (placement included).
inline verify::Report verify_program(std::string_view name, const Topology& model,
                                     Parameters params = {}) {
  const auto& a = row(name);
  ScheduleHeader h = schedules::make_header(a, model, std::move(params));
  const Schedule s = schedules::generate_program(a, h);
  return verify::verify(s, model, a.claims(s.header));
}

/// "name: summary; " for every check that did not pass.
inline std::string failed_checks(const verify::Report& r) {
  std::string out;
  for (const auto& c : r.checks)
    if (c.verdict != verify::Verdict::pass) out += std::string(c.name()) + ": " + c.summary + "; ";
  return out;
}

}  // namespace phasecheck::testing::nccl
