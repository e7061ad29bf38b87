#include "programs/zero_buffering.hpp"

#include <deque>

namespace phasecheck::programs {

CheckResult zero_buffering(const std::vector<RequestProgram>& programs) {
  const Rank p = static_cast<Rank>(programs.size());
  std::vector<std::vector<bool>> posted(p);
  for (Rank r = 0; r < p; ++r) posted[r].assign(programs[r].requests.size(), false);
  std::vector<std::size_t> pc(p, 0);
  std::deque<Rank> ready;
  std::vector<bool> queued(p, true);
  for (Rank r = 0; r < p; ++r) ready.push_back(r);
  std::uint64_t ops = 0;

  const auto complete = [&](Rank r, std::uint32_t q) {
    const Request& req = programs[r].requests[q];
    return posted[r][q] && req.partner && posted[req.peer][*req.partner];
  };
  while (!ready.empty()) {
    const Rank r = ready.front();
    ready.pop_front();
    queued[r] = false;
    const RequestProgram& prog = programs[r];
    while (pc[r] < prog.ops.size()) {
      const RequestOp& op = prog.ops[pc[r]];
      if (op.kind == RequestOp::Kind::wait) {
        if (!complete(r, op.request)) break;
      } else {
        posted[r][op.request] = true;
        const Request& req = prog.requests[op.request];
        if (req.partner && !queued[req.peer]) {  // its partner's wait may now return
          queued[req.peer] = true;
          ready.push_back(req.peer);
        }
      }
      ++pc[r];
      ++ops;
    }
  }

  std::vector<Rank> blocked;
  for (Rank r = 0; r < p; ++r)
    if (pc[r] < programs[r].ops.size()) blocked.push_back(r);
  if (blocked.empty())
    return {CheckId::deadlock, Verdict::pass,
            "all " + std::to_string(ops) + " calls of " + std::to_string(p) +
                " ranks complete with no message buffered"};

  // Each blocked rank waits for one request; follow "waits for" from the first blocked rank
  // until a rank repeats (a cycle) or the chain ends at a request nothing matches.
  Counterexample c;
  std::string chain;
  std::vector<int> seen(p, -1);
  Rank r = blocked.front();
  std::vector<Rank> path;
  while (true) {
    if (seen[r] >= 0) {
      path.erase(path.begin(), path.begin() + seen[r]);
      break;
    }
    seen[r] = static_cast<int>(path.size());
    path.push_back(r);
    const Request& req = programs[r].requests[programs[r].ops[pc[r]].request];
    if (!req.partner) break;
    if (pc[req.peer] >= programs[req.peer].ops.size()) break;  // peer finished: cannot happen
    r = req.peer;
  }
  std::string resource;
  for (const Rank b : path) {
    const Request& req = programs[b].requests[programs[b].ops[pc[b]].request];
    if (!chain.empty()) chain += "; ";
    chain += "rank " + std::to_string(b) + " waits in " + req.call + " for ";
    chain += !req.partner ? "a matching " + std::string(req.send ? "receive" : "send") +
                                " that rank " + std::to_string(req.peer) + " never posts"
                          : "rank " + std::to_string(req.peer) + " to post the " +
                                (req.send ? "receive" : "send");
    resource += (resource.empty() ? "ranks " : " -> ") + std::to_string(b);
  }
  const bool cycle = programs[path.back()].requests[programs[path.back()].ops[pc[path.back()]].request]
                         .partner.has_value();
  if (cycle) resource += " -> " + std::to_string(path.front());
  c.resource = resource;
  c.explanation = chain + (cycle ? ": with no message buffered none of them ever returns"
                                 : ": with no message buffered it never returns");
  return {CheckId::deadlock, Verdict::fail,
          std::to_string(blocked.size()) + " of " + std::to_string(p) +
              " ranks never finish with no message buffered (the run completed on eager buffering)",
          c};
}

}  // namespace phasecheck::programs
