#include "ci/comparison.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/files.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::ci {
namespace {

using verify::Verdict;

/// Phase i of a table as a sorted list of transfers, for the first difference.
std::vector<std::string> phase_keys(const Phase& p) {
  std::vector<std::string> keys;
  for (const Transfer& t : p.transfers()) {
    std::string k = std::to_string(t.src) + ">" + std::to_string(t.dst) + ":";
    for (const Block& b : p.blocks(t))
      k += std::to_string(b.origin) + "," + std::to_string(b.dest) + "," + std::to_string(b.part) +
           ";";
    keys.push_back(std::move(k));
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

const verify::CheckResult* find_check(const Side& s, verify::CheckId id) {
  if (!s.report) return nullptr;
  for (const auto& c : s.report->checks)
    if (c.id == id) return &c;
  return nullptr;
}

}  // namespace

std::vector<std::string> allowable_regressions() {
  std::vector<std::string> keys;
  for (const char* key : kRegressions)
    if (std::string_view(key) != "check-failed") keys.push_back(key);
  return keys;
}

Side judge(Schedule table, const std::string& source, const Topology* model, const Claims& claims) {
  Side s;
  s.source = source;
  const Topology& m = model ? *model : table.header.topology;
  // (An InputError here: the rank counts differ; it names the file.)
  s.report = with_source(source, [&] { return verify::verify(table, m, claims); });
  s.figures = {s.report->counts.phases, s.report->counts.c1, s.report->counts.c2};
  s.bound_c1 = s.report->bound_c1;
  s.bound_c2 = s.report->bound_c2;
  s.known = verify::known_bounds(*s.report);
  s.gap = verify::gap(*s.report);
  s.table = std::move(table);
  return s;
}

Side baseline_figures(const io::Figures& figures, const Side& after) {
  Side s;
  s.source = "baseline";
  s.figures = figures;
  s.bound_c1 = after.bound_c1;
  s.bound_c2 = after.bound_c2;
  s.known = after.known;
  // A baseline given by its figures was accepted: valid, so only its bounds decide its gap.
  s.gap = verify::gap(figures.c1, figures.c2, s.known);
  return s;
}

bool Comparison::passed() const {
  return std::all_of(regressions.begin(), regressions.end(),
                     [](const Finding& f) { return f.allowed; });
}

verify::Verdict Comparison::verdict() const {
  return passed() ? verify::Verdict::pass : verify::Verdict::fail;
}

Collective Comparison::collective() const {
  return after.table ? after.table->header.collective : Collective::alltoall;
}

std::string verdict_of(const Side& s, verify::CheckId check) {
  const verify::CheckResult* c = find_check(s, check);
  return c ? std::string(verify::to_string(c->verdict)) : "-";
}

std::vector<verify::CheckId> check_ids(const Comparison& c) {
  std::vector<verify::CheckId> ids;
  for (const Side* s : {&c.before, &c.after})
    if (s->report)
      for (const auto& r : s->report->checks)
        if (std::find(ids.begin(), ids.end(), r.id) == ids.end()) ids.push_back(r.id);
  return ids;
}

Comparison compare(Side before, Side after, const std::set<std::string>& allow) {
  Comparison c{std::move(before), std::move(after), {}, {}, {}, {}, allow};
  const auto add = [&](const std::string& key, const std::string& text) {
    c.regressions.push_back({key, text, key != "check-failed" && allow.count(key) > 0});
  };
  const auto figure = [&](const char* name, const char* key, std::uint64_t a, std::uint64_t b) {
    if (b > a) add(key, std::string(name) + " " + std::to_string(a) + " -> " + std::to_string(b));
    if (b < a)
      c.improvements.push_back(std::string(name) + " " + std::to_string(a) + " -> " +
                               std::to_string(b));
  };
  // Figures are compared against a baseline that passed its checks; one that failed some is not
  // a standard to hold the change to (fixing it may well take more phases).
  const bool baseline_valid = !c.before.report || c.before.report->verdict() == Verdict::pass;
  if (!baseline_valid) {
    for (const auto& old : c.before.report->checks)
      if (old.verdict == Verdict::fail && verdict_of(c.after, old.id) == "pass")
        c.improvements.push_back(std::string(old.name()) + " fails before and passes after");
  }
  const io::Figures &x = c.before.figures, &y = c.after.figures;
  if (baseline_valid) {
    figure("phases", "more-phases", x.phases, y.phases);
    figure("C1", "larger-c1", x.c1, y.c1);
    figure("C2", "larger-c2", x.c2, y.c2);
    // Each side against its own model's bound (diff without --topology may change the model).
    // A gap that is undefined on either side (below the bound, no bound, an invalid schedule)
    // is not compared: the checks speak for those.
    const auto gaps = [&](const char* name, std::optional<std::uint64_t> old_gap,
                          std::optional<std::uint64_t> new_gap) {
      if (old_gap && new_gap) figure(name, "larger-gap", *old_gap, *new_gap);
    };
    gaps("gap to the C1 bound", c.before.gap.c1, c.after.gap.c1);
    gaps("gap to the C2 bound", c.before.gap.c2, c.after.gap.c2);
  }
  // Checks: every one that fails after and did not fail before (or had no before).
  for (const auto& check : c.after.report->checks) {
    if (check.verdict != Verdict::fail) continue;
    const verify::CheckResult* old = find_check(c.before, check.id);
    if (old && old->verdict == Verdict::fail) continue;
    c.new_failures.push_back(check);
    add("check-failed", std::string(check.name()) + ": " + check.summary);
  }
  // A check that passed before and is not evaluated now (or is gone) no longer guards anything:
  // the change must not pass quietly for it.
  if (c.before.report)
    for (const auto& old : c.before.report->checks) {
      if (old.verdict != Verdict::pass) continue;
      const verify::CheckResult* now = find_check(c.after, old.id);
      const std::string name(old.name());
      if (!now)
        add("check-dropped", name + ": passed before and is not checked after");
      else if (now->verdict == Verdict::not_evaluated || now->verdict == Verdict::unknown)
        add("check-dropped", name + ": passed before and is " +
                                 std::string(verify::to_string(now->verdict)) + " after (" +
                                 now->summary + ")");
    }
  if (c.before.table && c.after.table) {
    const auto& a = c.before.table->phases;
    const auto& b = c.after.table->phases;
    for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i)
      if (i >= a.size() || i >= b.size() || phase_keys(a[i]) != phase_keys(b[i])) {
        c.first_difference = i;
        break;
      }
  }
  return c;
}

}  // namespace phasecheck::ci
