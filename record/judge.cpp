#include "record/judge.hpp"

#include "record/deadlock.hpp"
#include "record/final_buffers.hpp"
#include "record/identify.hpp"
#include "record/lifetime.hpp"
#include "record/messages.hpp"
#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::record {
namespace {

/// How the call ended on every rank, and whether the rest can be judged.
CheckResult execution(const Recording& rec, bool& judgeable) {
  judgeable = false;
  std::size_t refused = 0, sent = 0;
  for (Rank r = 0; r < rec.ranks; ++r) {
    const RankRecording& rr = rec.rank[r];
    for (const Event& e : rr.events) {
      if (e.kind == Event::Kind::send) ++sent;
      if (e.kind == Event::Kind::abort)
        return {CheckId::execution, Verdict::fail,
                "rank " + std::to_string(r) + " called MPI_Abort (code " + std::to_string(e.code) + ")"};
    }
    if (!rr.end)
      return {CheckId::execution, Verdict::fail,
              "rank " + std::to_string(r) + " never returned from " + rec.routine};
    switch (rr.end->status) {
      case End::Status::ok:
        break;
      case End::Status::unloadable:
        return {CheckId::execution, Verdict::fail,
                "rank " + std::to_string(r) + " could not load " + rec.routine + ": " + rr.end->error};
      case End::Status::error:
        ++refused;
        break;
    }
  }
  if (refused == rec.ranks && sent == 0 && rec.level == Level::pml)
    return {CheckId::execution, Verdict::not_evaluated,
            "not applicable: the library refused the call at " + std::to_string(rec.ranks) +
                " ranks before sending anything (" + rec.rank[0].end->error + ")"};
  for (Rank r = 0; r < rec.ranks; ++r)
    if (rec.rank[r].end->status == End::Status::error)
      return {CheckId::execution, Verdict::fail,
              "rank " + std::to_string(r) + ": " + rec.routine + " returned " + rec.rank[r].end->error};
  judgeable = true;
  return {CheckId::execution, Verdict::pass,
          "every rank of " + std::to_string(rec.ranks) + " returned MPI_SUCCESS"};
}

/// The checks that need a run to judge, not evaluated, with why.
void not_judged(verify::Report& report, const std::string& why) {
  for (const CheckId id : {CheckId::delivery, CheckId::placement, CheckId::deadlock,
                           CheckId::lifetime})
    report.checks.emplace_back(id, Verdict::not_evaluated, why);
}

}  // namespace

Judgement unfinished(const std::string& algorithm, Collective collective, const Topology& model,
                     const std::string& what) {
  Judgement out;
  out.report.topology = describe(model);
  out.report.algorithm = algorithm;
  out.report.collective = collective;
  out.report.checks.emplace_back(CheckId::execution, Verdict::fail, what);
  not_judged(out.report, "the run left nothing to judge");
  return out;
}

Judgement judge(const Recording& rec, const Topology& model, const std::string& fallback_name,
                std::string_view prefer) {
  Judgement out;
  verify::Report& report = out.report;
  report.algorithm = fallback_name;
  report.collective = rec.collective;
  report.topology = describe(model);
  bool judgeable = false;
  report.checks.push_back(execution(rec, judgeable));
  if (!judgeable) {
    not_judged(report, "the call did not return on every rank");
    return out;
  }
  Messages messages = match_messages(rec);
  std::vector<CheckResult> table_checks;
  if (!messages.unmatched.empty()) {
    table_checks.emplace_back(CheckId::delivery, Verdict::fail,
                              std::to_string(messages.unmatched.size()) +
                                  " receives took no recorded send: " + messages.unmatched.front());
  } else if (rec.count == 0) {
    std::uint64_t bytes = 0;
    for (const Message& m : messages.list) bytes += rec.rank[m.src].events[m.send].payload.length;
    if (bytes == 0)
      table_checks.emplace_back(CheckId::delivery, Verdict::pass,
                                "count 0: " + std::to_string(messages.list.size()) +
                                    " messages, none carried a byte");
    else
      table_checks.emplace_back(CheckId::delivery, Verdict::fail,
                                "count 0, yet the messages carried " + std::to_string(bytes) + " bytes");
  } else {
    RecordedTable table = recorded_table(rec, messages, model, fallback_name);
    if (!table.schedule) {
      Counterexample c;
      c.phase = table.bad_phase;
      c.explanation = table.bad;
      table_checks.emplace_back(CheckId::delivery, Verdict::fail, "a message carried bytes that are no element", c);
    } else {
      if (std::optional<Identified> known = identify(*table.schedule, prefer)) {
        out.identified = known->name;
        table.schedule = std::move(known->aligned);
        // Every check names the phases of the aligned table.
        for (Message& m : messages.list) m.phase = known->moved_to[m.phase];
        table.schedule->header.algorithm = known->name;
      }
      const Claims claims = schedules::claims_for(table.schedule->header);
      verify::Report verdicts = verify::verify(*table.schedule, model, claims);
      report.algorithm = table.schedule->header.algorithm;
      report.topology = verdicts.topology;
      report.counts = verdicts.counts;
      report.bounds = verdicts.bounds;
      report.bound_c1 = verdicts.bound_c1;
      report.bound_c2 = verdicts.bound_c2;
      table_checks = std::move(verdicts.checks);
      out.schedule = std::move(table.schedule);
    }
  }
  for (CheckResult& c : table_checks) report.checks.push_back(std::move(c));
  report.checks.push_back(check_final_buffers(rec, messages));
  report.checks.push_back(check_deadlock(rec, messages));
  report.checks.push_back(check_lifetime(rec, messages));
  return out;
}

}  // namespace phasecheck::record
