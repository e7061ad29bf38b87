#include "core/verdict.hpp"

#include <ostream>

#include "core/escape.hpp"

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

Verdict overall(const std::vector<Verdict>& verdicts) {
  bool unknown = false, passed = false;
  for (const Verdict v : verdicts) {
    switch (v) {
      case Verdict::fail:
        return Verdict::fail;
      case Verdict::unknown:
        unknown = true;
        break;
      case Verdict::pass:
        passed = true;
        break;
      case Verdict::not_evaluated:
        break;
    }
  }
  return unknown ? Verdict::unknown : passed ? Verdict::pass : Verdict::not_evaluated;
}

std::string_view to_string(CheckId id) {
  switch (id) {
    case CheckId::execution:
      return "execution";
    case CheckId::delivery:
      return "delivery";
    case CheckId::placement:
      return "placement";
    case CheckId::contention:
      return "contention";
    case CheckId::invariants:
      return "invariants";
    case CheckId::claims:
      return "claims";
    case CheckId::requests:
      return "requests";
    case CheckId::bounds:
      return "bounds";
    case CheckId::replay:
      return "replay";
    case CheckId::synchronization:
      return "synchronization";
    case CheckId::witness:
      return "witness";
    case CheckId::deadlock:
      return "deadlock";
    case CheckId::lifetime:
      return "lifetime";
  }
  return "?";  // not a CheckId: unreachable
}

std::string tally(const std::vector<CheckResult>& checks) {
  std::size_t pass = 0, fail = 0, unknown = 0, skipped = 0;
  for (const CheckResult& c : checks) switch (c.verdict) {
      case Verdict::pass:
        ++pass;
        break;
      case Verdict::fail:
        ++fail;
        break;
      case Verdict::unknown:
        ++unknown;
        break;
      case Verdict::not_evaluated:
        ++skipped;
        break;
    }
  const auto plural = [](std::size_t k) { return k == 1 ? " check" : " checks"; };
  std::string out;
  if (fail > 0)
    out = std::to_string(fail) + " of " + std::to_string(checks.size()) + plural(checks.size()) +
          " failed";
  else if (unknown == 0 && skipped == 0)
    out = "all " + std::to_string(pass) + plural(pass) + " pass";
  else
    out = std::to_string(pass) + plural(pass) + " pass";
  if (unknown > 0) out += ", " + std::to_string(unknown) + " undecided";
  if (skipped > 0) out += ", " + std::to_string(skipped) + " not evaluated";
  return out;
}

std::ostream& operator<<(std::ostream& os, Verdict v) { return os << to_string(v); }

std::ostream& operator<<(std::ostream& os, const Counterexample& c) {
  // The label and the explanation may quote the input: one line each (core/escape.hpp).
  if (c.phase) os << "phase " << *c.phase << " \"" << text_escape(c.label) << "\": ";
  os << text_escape(c.explanation);
  for (const OffendingTransfer& t : c.transfers) {
    os << "\n  " << t.src << " -> " << t.dst;
    for (const Block& b : t.blocks) os << ' ' << b;
  }
  return os;
}

std::ostream& operator<<(std::ostream& os, const CheckResult& r) {
  os << r.name() << ": " << r.verdict << " (" << text_escape(r.summary) << ")";
  if (r.counterexample) os << "\n" << *r.counterexample;
  return os;
}

}  // namespace phasecheck
