// The parameter the direct algorithms of direct.hpp share: collective, and nothing else, since
// they differ only in which messages share a phase.

#include "schedules/direct.hpp"
#include "schedules/collective_parameter.hpp"

namespace phasecheck::schedules {
namespace {

constexpr ParameterSpec kParameters[] = {kCollective};

}  // namespace

std::span<const ParameterSpec> DirectOptions::parameters() { return kParameters; }

DirectOptions DirectOptions::from(const ScheduleHeader& header, std::string_view algorithm) {
  check_parameters(header.parameters, kParameters, header.ranks(), algorithm);
  return {header.ranks(), header.collective};
}

}  // namespace phasecheck::schedules
