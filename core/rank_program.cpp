#include "core/rank_program.hpp"

#include <string>

#include "core/error.hpp"

namespace phasecheck {

Separation parse_separation(std::string_view name) {
  if (name == "none") return Separation::none;
  if (name == "barrier") return Separation::barrier;
  if (name == "pairwise") return Separation::pairwise;
  throw InputError("unknown synchronization '" + std::string(name) +
                   "' (expected none, barrier or pairwise)");
}

const char* to_string(Separation s) {
  switch (s) {
    case Separation::none:
      return "none";
    case Separation::barrier:
      return "barrier";
    case Separation::pairwise:
      break;
  }
  return "pairwise";
}

const char* to_string(ProgramOp::Kind k) {
  switch (k) {
    case ProgramOp::Kind::send:
      return "send";
    case ProgramOp::Kind::recv:
      return "recv";
    case ProgramOp::Kind::copy:
      return "copy";
    case ProgramOp::Kind::wait:
      return "wait";
    case ProgramOp::Kind::sync_send:
      return "sync-send";
    case ProgramOp::Kind::sync_recv:
      return "sync-recv";
    case ProgramOp::Kind::barrier:
      break;
  }
  return "barrier";
}

}  // namespace phasecheck
