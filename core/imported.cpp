#include "core/imported.hpp"

#include <ostream>

namespace phasecheck {

std::string to_string(const StepRef& s) {
  return "gpu " + std::to_string(s.gpu) + " tb " + std::to_string(s.threadblock) + " step " +
         std::to_string(s.step);
}

std::string to_string(const OpOrigin& o) {
  if (o.sender == o.receiver) return to_string(o.sender);
  return to_string(o.sender) + " -> " + to_string(o.receiver);
}

std::string_view to_string(ExecutionFaultKind k) {
  switch (k) {
    case ExecutionFaultKind::shared_connection:
      return "shared connection";
    case ExecutionFaultKind::count_mismatch:
      return "count mismatch";
    case ExecutionFaultKind::unmatched_send:
      return "unmatched send";
    case ExecutionFaultKind::unmatched_receive:
      return "unmatched receive";
    case ExecutionFaultKind::never_released:
      return "never released";
    case ExecutionFaultKind::deadlock:
      return "deadlock";
    case ExecutionFaultKind::race:
      return "race";
    case ExecutionFaultKind::outside_buffer:
      return "outside buffer";
    case ExecutionFaultKind::stale_read:
      return "stale read";
  }
  return "?";  // not an enumerator: a corrupted value
}

std::ostream& operator<<(std::ostream& os, ExecutionFaultKind k) { return os << to_string(k); }

}  // namespace phasecheck
