#include "verify/cost.hpp"

#include <cmath>

#include "core/error.hpp"

namespace phasecheck::verify {
namespace {

bool close(double a, double b) {
  return std::abs(a - b) <= kCostTolerance * std::max({1e-300, std::abs(a), std::abs(b)});
}

std::string times(std::uint64_t n, const char* term) { return std::to_string(n) + " " + term; }

}  // namespace

void LinearCost::validate() const {
  const auto check = [](double v, const char* name) {
    if (!std::isfinite(v) || v < 0)
      throw InputError(std::string(name) + " must be a finite non-negative number");
  };
  check(ts, "--ts");
  check(tw, "--tw");
  check(m, "--m");
}

bool CostReport::consistent() const {
  for (const CostRow& r : rows)
    if (r.verdict == Verdict::fail) return false;
  return true;
}

/// An alltoallv's: T = t_s C1 + t_w cost_bytes, next to t_w load_bound_bytes.
CostReport weighted_cost(const Report& report, const ByteFigures& bytes, const LinearCost& model) {
  const double seconds = model.ts * double(report.counts.c1) + model.tw * double(bytes.cost);
  CostReport out{model, seconds, {}};
  out.rows.push_back({CostRow::Kind::schedule,
                      "this schedule: " + times(report.counts.c1, "t_s") + " + " +
                          times(bytes.cost, "bytes x t_w"),
                      seconds, Verdict::pass});
  const double bound = model.tw * double(bytes.load_bound);
  const bool valid = report.passed(CheckId::delivery) && report.passed(CheckId::contention);
  out.rows.push_back({CostRow::Kind::model_bound,
                      "load bound on " + report.topology + ": " +
                          times(bytes.load_bound, "bytes x t_w") + " (" + bytes.argument + ")",
                      bound,
                      !valid                                      ? Verdict::not_evaluated
                      : seconds >= bound || close(seconds, bound) ? Verdict::pass
                                                                  : Verdict::fail});
  return out;
}

CostReport cost(const Report& report, const Claims& claims, const LinearCost& model) {
  model.validate();
  if (report.bytes) return weighted_cost(report, *report.bytes, model);
  CostReport out{model, model.time(report.counts.c1, report.counts.c2), {}};
  out.rows.push_back({CostRow::Kind::schedule,
                      "this schedule: " + times(report.counts.c1, "t_s") + " + " +
                          times(report.counts.c2, "t_w m"),
                      out.seconds, Verdict::pass});
  for (const CostFormula& f : claims.cost) {
    const double t = f.time(model.ts, model.tw, model.m);
    const bool equation = f.kind == CostFormula::Kind::equation;
    const bool holds = equation ? close(out.seconds, t) : out.seconds >= t || close(out.seconds, t);
    out.rows.push_back({equation ? CostRow::Kind::equation : CostRow::Kind::lower_bound, f.name, t,
                        holds ? Verdict::pass : Verdict::fail});
  }
  // The model's bound holds for schedules that deliver everything without contention; an
  // invalid schedule may well beat it, which says nothing new.
  const double bound = model.time(report.bound_c1, report.bound_c2);
  const bool valid = report.passed(CheckId::delivery) && report.passed(CheckId::contention);
  out.rows.push_back({CostRow::Kind::model_bound,
                      "lower bound on " + report.topology + ": " + times(report.bound_c1, "t_s") +
                          " + " + times(report.bound_c2, "t_w m"),
                      bound,
                      !valid                                              ? Verdict::not_evaluated
                      : out.seconds >= bound || close(out.seconds, bound) ? Verdict::pass
                                                                          : Verdict::fail});
  return out;
}

const char* to_string(CostRow::Kind kind) {
  switch (kind) {
    case CostRow::Kind::schedule:
      return "schedule";
    case CostRow::Kind::equation:
      return "equation";
    case CostRow::Kind::lower_bound:
      return "lower bound";
    case CostRow::Kind::model_bound:
      return "model bound";
  }
  return "?";
}

}  // namespace phasecheck::verify
