#include "core/verdict.hpp"

#include <ostream>

namespace phasecheck {

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::pass:
      return "pass";
    case Verdict::fail:
      return "fail";
    case Verdict::unknown:
      return "unknown";
    case Verdict::not_evaluated:
      return "not-evaluated";
  }
  return "unknown";  // not a Verdict: unreachable
}

std::ostream& operator<<(std::ostream& os, Verdict v) { return os << to_string(v); }

std::ostream& operator<<(std::ostream& os, const Counterexample& c) {
  if (c.phase) os << "phase " << *c.phase << " \"" << c.label << "\": ";
  os << c.explanation;
  for (const OffendingTransfer& t : c.transfers) {
    os << "\n  " << t.src << " -> " << t.dst;
    for (const Block& b : t.blocks) os << ' ' << b;
  }
  return os;
}

std::ostream& operator<<(std::ostream& os, const CheckResult& r) {
  os << r.name << ": " << r.verdict << " (" << r.summary << ")";
  if (r.counterexample) os << "\n" << *r.counterexample;
  return os;
}

}  // namespace phasecheck
