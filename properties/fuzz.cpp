#include "fuzz.hpp"

#include <chrono>
#include <cmath>
#include <iostream>
#include <limits>
#include <optional>
#include <ostream>
#include <sstream>

#include <rapidcheck/detail/Configuration.h>

#include "claims_check.hpp"
#include "properties/failure.hpp"
#include "properties/function_fuzz.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"
#include "core/progress.hpp"
#include "core/suggest.hpp"
#include "generators.hpp"
#include "io/json.hpp"
#include "launch/process.hpp"
#include "parameters_gen.hpp"
#include "pipeline/generator.hpp"
#include "pipeline/read_schedule.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::properties {
namespace {

using Clock = std::chrono::steady_clock;


/// Counts cases, and shows them on the progress meter.
class Progress : public rc::detail::TestListener {
 public:
  explicit Progress(ProgressMeter& meter) : meter_(meter) {}
  void onTestCaseFinished(const rc::detail::CaseDescription& c) override {
    if (c.result.type == rc::detail::CaseResult::Type::Discard) {
      ++discarded_;
    } else {
      ++cases_;
      meter_.advance();
    }
  }
  void onShrinkTried(const rc::detail::CaseDescription&, bool accepted) override {
    ++shrinks_;
    accepted_ += accepted;
    meter_.note("shrinking (" + std::to_string(accepted_) + " of " + std::to_string(shrinks_) +
                " shrinks kept)");
  }
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
  std::uint64_t cases() const { return cases_; }
  std::uint64_t discarded() const { return discarded_; }

 private:
  ProgressMeter& meter_;
  std::uint64_t cases_ = 0, discarded_ = 0, shrinks_ = 0, accepted_ = 0;
};

}  // namespace

std::string broken_program(const schedules::Algorithm& a, const Schedule& table,
                           const verify::Report& table_report, const Topology& model,
                           Schedule* program, verify::Report* report) {
  Schedule made;
  try {
    made = schedules::generate_program(a, table.header);
  } catch (const InputError& e) {
    return std::string("its buffer program cannot be made: ") + e.what() + "; ";
  }
  verify::Report r = verify::verify(made, model, a.claims(made.header));
  std::string broken;
  const auto failed = [&](const verify::CheckResult& c) {
    broken += std::string(c.name()) + ": " + c.summary +
              (c.counterexample ? " / " + c.counterexample->explanation : "") + "; ";
  };
  const auto find = [&](verify::CheckId id) -> const verify::CheckResult* {
    for (const verify::CheckResult& c : r.checks)
      if (c.id == id) return &c;
    return nullptr;
  };
  if (const auto* placement = find(verify::CheckId::placement); !placement) {
    broken += "placement: not checked; ";
  } else if (placement->verdict != verify::Verdict::pass) {
    failed(*placement);
  }
  // A table without phases (one rank: nothing to send) still needs a phase for the self copy in
  // its program; its claims say so (schedules/registry.cpp), and the invariants, which name the
  // table's phases, have none to speak of.
  const bool self_copy_only = table.phases.empty();
  for (const verify::CheckResult& c : table_report.checks) {
    if (c.verdict != verify::Verdict::pass) continue;
    if (self_copy_only && c.id == verify::CheckId::invariants) continue;
    if (const auto* same = find(c.id); !same)
      broken +=
          std::string(c.name()) + ": passes for the table but is not checked for the program; ";
    else if (same->verdict != verify::Verdict::pass)
      failed(*same);
  }
  if (program) *program = std::move(made);
  if (report) *report = std::move(r);
  return broken;
}


void validate(const FuzzOptions& o) {
  if (o.cases == 0 || o.cases > (std::uint64_t(1) << 30))
    throw InputError("fuzz: --cases must be in [1, 2^30]");
  if (!std::isfinite(o.seconds) || o.seconds < 0 || o.seconds > 7 * 86400)
    throw InputError("fuzz: --seconds must be a number of seconds in [0, 604800] (a week)");
  if (o.max_size < 1 || o.max_size > kMaxFuzzSize)
    throw InputError("fuzz: --max-size must be in [1, " + std::to_string(kMaxFuzzSize) + "]");
  if (o.seed > std::numeric_limits<std::uint64_t>::max() - (std::uint64_t(1) << 32))
    throw InputError("fuzz: --seed must be below 2^64 - 2^32 (batches count up from it)");
}

Verdict fuzz(const FuzzOptions& o, std::ostream& progress, const CaseReportRenderer& render_case,
             const std::function<void(const FuzzOutcome&)>& on_outcome) {
  validate(o);
  bool checked = false;  // some algorithm ran its cases without giving up
  {
    // rapidcheck announces its default configuration on first use ("Using configuration: seed=");
    // every run here passes its own parameters, so that line would only mislead.
    std::ostringstream quiet;
    std::streambuf* const saved = std::cerr.rdbuf(quiet.rdbuf());
    rc::detail::configuration();
    std::cerr.rdbuf(saved);
  }
  std::vector<const schedules::Algorithm*> algorithms;
  std::optional<launch::ScratchDirectory> scratch;  // the generator's files
  if (o.generator.empty()) {
    if (o.algorithms.empty())
      for (const auto& a : schedules::algorithms()) algorithms.push_back(&a);
    for (const std::string& name : o.algorithms) {
      algorithms.push_back(&schedules::require_algorithm(name));
    }
  } else {
    algorithms.push_back(nullptr);  // the external generator
    check_timeout(o.generator_timeout, "--generator-timeout");
    scratch.emplace();
  }

  // --seconds is shared evenly between the algorithms.
  const double share = o.seconds / double(algorithms.size());
  for (const schedules::Algorithm* a : algorithms) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(share);
    const std::string name = a ? std::string(a->name) : "generator '" + o.generator + "'";
    std::uint64_t total = 0, discarded = 0;
    bool gave_up = false;
    const auto start = Clock::now();
    // --cases is known ahead; --seconds runs batches until the time is spent (no total).
    ProgressMeter meter(o.progress ? &progress : nullptr, "fuzz " + name, "cases",
                        o.seconds > 0 ? 0 : o.cases);
    for (std::uint64_t batch = 0;; ++batch) {
      FoundFailure failure;
      bool failed = false;
      const auto property = [&](const Topology& t) {
        Schedule s;
        std::string broken;
        std::string report;
        if (a) {
          const Parameters params = random_parameters(*a, ranks(t));
          try {
            s = schedules::generate(*a, t, params, random_traffic(*a, ranks(t)));
          } catch (const InputError& e) {
            RC_DISCARD(e.what());
          }
          verify::Report r;
          broken = broken_claims(*a, s, t, {1e-6, 1e-9, 1024}, &r);
          report = render_case(r);
          if (broken.empty() && !s.header.traffic) {  // (an alltoallv has no buffer program)
            // The same algorithm's buffer program: placed right, and every check that passes
            // for the table passes for it. On a failure the program is the case written out.
            Schedule program;
            verify::Report pr;
            broken = broken_program(*a, s, r, t, &program, &pr);
            if (!broken.empty()) {
              broken = "buffer program: " + broken;
              if (program.header.buffers) {
                s = std::move(program);
                report = render_case(pr);
              } else {
                report = broken + "\n";  // never made: the table is the case written out
              }
            }
          }
        } else {
          std::string problem;
          if (launch::interrupted()) RC_DISCARD("interrupted");
          std::optional<Schedule> got;
          try {
            got = pipeline::run_generator({o.generator, "", o.generator_timeout}, t,
                                          scratch->path(), problem);
          } catch (const InputError& e) {
            if (launch::interrupted()) RC_DISCARD("interrupted");
            problem = std::string("the generator could not run: ") + e.what();
          }
          if (!got && problem.empty()) RC_DISCARD("the generator does not take this machine");
          if (!got) {
            broken = problem;
          } else {
            s = std::move(*got);
            verify::Report r;
            broken = judge_generated(s, t, o.contention_free, &r);
            report = render_case(r);
          }
        }
        if (!broken.empty()) {
          failed = true;
          failure = {
              t, broken.rfind("the generator", 0) == 0 ? std::nullopt : std::optional<Schedule>(s),
              name + ": " + broken, report.empty() ? broken + "\n" : report};
        }
        RC_ASSERT(broken == std::string());
      };
      rc::detail::TestParams params;
      params.seed = o.seed + batch;
      params.maxSuccess = static_cast<int>(std::min<std::uint64_t>(o.cases, 1u << 30));
      params.maxSize = o.max_size;
      params.maxDiscardRatio = 50;
      rc::detail::TestMetadata metadata;
      metadata.id = metadata.description = name;
      Progress listener(meter);
      const auto result = rc::detail::checkTestable(property, metadata, params, listener);
      total += listener.cases();
      discarded += listener.discarded();
      if (launch::interrupted()) throw InputError("fuzz: interrupted; the generator was stopped");
      if (rc::detail::FailureResult other; result.match(other) && !failed) {
        // The property itself threw (not a broken claim): never a pass.
        meter.finish();
        on_outcome({name, Verdict::fail, total, 0, 0, other.description, std::nullopt});
        return Verdict::fail;
      }
      if (result.template is<rc::detail::FailureResult>() && failed) {
        meter.finish();
        const std::string again =
            "phasecheck fuzz " + (a ? std::string(a->name) : "--generator '" + o.generator + "'") +
            " --seed " + std::to_string(o.seed + batch) + " --cases " + std::to_string(o.cases);
        on_outcome({name, Verdict::fail, total, 0, 0, "", record_failure(failure, o.out, again)});
        return Verdict::fail;
      }
      if (result.template is<rc::detail::GaveUpResult>()) {
        meter.finish();
        on_outcome({name, Verdict::not_evaluated, listener.cases(), 0, 0,
                    "too many generated machines do not fit it", std::nullopt});
        gave_up = true;
        break;
      }
      if (o.seconds <= 0 || Clock::now() >= deadline) break;
    }
    if (gave_up) continue;
    checked = true;
    const double s = std::chrono::duration<double>(Clock::now() - start).count();
    meter.finish();
    on_outcome({name, Verdict::pass, total, discarded, s, "", std::nullopt});
  }
  return checked ? Verdict::pass : Verdict::not_evaluated;
}

}  // namespace phasecheck::properties
