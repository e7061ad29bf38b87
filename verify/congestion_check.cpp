#include "verify/congestion_check.hpp"

#include <utility>

namespace phasecheck::verify {

std::string c2_bound_argument(const Report& report) {
  for (const Bound& b : report.bounds)
    if (b.metric == Metric::c2 && b.value == report.bound_c2) return b.argument;
  return {};
}

CongestionCheck::CongestionCheck(const ScheduleHeader& header, const Topology& model, Claims claims,
                                 bool keep_phases)
    : verifier_(header, model, std::move(claims)), meter_(model, keep_phases) {}

void CongestionCheck::consume(const Phase& phase) {
  verifier_.consume(phase);
  meter_.consume(phase);
}

CongestionSummary CongestionCheck::finish() const {
  CongestionSummary s;
  s.report = verifier_.finish();
  s.delivered = s.report.passed(CheckId::delivery);
  s.phases = meter_.phase_count();
  s.sum_of_max = meter_.sum_of_max();
  s.lower_bound = s.report.bound_c2;
  s.argument = c2_bound_argument(s.report);
  s.mean_of_max = meter_.mean_of_max();
  s.peak = meter_.peak();
  s.loads = meter_.loads();
  return s;
}

}  // namespace phasecheck::verify
