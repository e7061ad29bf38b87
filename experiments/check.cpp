#include "experiments/check.hpp"

#include "verify/verifier.hpp"

namespace phasecheck::experiments {

verify::Report check_algorithm(const schedules::Algorithm& algorithm, const Topology& model,
                               Parameters parameters) {
  const ScheduleHeader header = schedules::make_header(algorithm, model, std::move(parameters));
  verify::Verifier verifier(header, header.topology, schedules::claims_for(header));
  algorithm.generate(header, verifier.sink());
  return verifier.finish();
}

}  // namespace phasecheck::experiments
