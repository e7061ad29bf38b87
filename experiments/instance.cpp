#include "experiments/instance.hpp"

#include <utility>

#include "core/error.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::experiments {

Instance check_instance(const schedules::Algorithm& algorithm, const Topology& model,
                        const Parameters& parameters, bool buffers, SharedTraffic traffic) {
  Instance instance;
  ScheduleHeader header;
  try {
    header = schedules::make_header(algorithm, model, parameters, std::move(traffic));
    if (buffers) {
      const Schedule program = schedules::generate_program(algorithm, header);
      instance.report = verify::verify(program, model, algorithm.claims(program.header));
    } else {
      verify::Verifier v(header, header.topology, algorithm.claims(header));
      algorithm.generate(header, v.sink());
      instance.report = v.finish();
    }
  } catch (const InputError& e) {  // the algorithm does not take this machine: why
    instance.not_applicable = e.what();
    instance.report.reset();
    return instance;
  }
  instance.contention_free_claimed = algorithm.contention_free_on(header, model);
  return instance;
}

}  // namespace phasecheck::experiments
