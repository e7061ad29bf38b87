#include "record/deadlock.hpp"

#include <unordered_map>

#include "programs/zero_buffering.hpp"

namespace phasecheck::record {

CheckResult check_deadlock(const Recording& rec, const Messages& messages) {
  using programs::Request;
  using programs::RequestOp;
  std::vector<programs::RequestProgram> progs(rec.ranks);
  // Per rank: the request each post event made.
  std::vector<std::unordered_map<std::size_t, std::uint32_t>> request_of(rec.ranks);
  for (Rank r = 0; r < rec.ranks; ++r) {
    const RankRecording& rr = rec.rank[r];
    std::unordered_map<std::uint64_t, std::uint32_t> by_id;
    for (std::size_t i = 0; i < rr.events.size(); ++i) {
      const Event& e = rr.events[i];
      if (e.kind == Event::Kind::send || e.kind == Event::Kind::recv) {
        const bool send = e.kind == Event::Kind::send;
        const auto q = static_cast<std::uint32_t>(progs[r].requests.size());
        Request req;
        req.send = send;
        req.peer = e.peer < 0 ? r : static_cast<Rank>(e.peer);  // a wildcard: set by the match
        req.call = std::string(e.blocking ? "" : "i") + (send ? "send to " : "recv from ") +
                   (e.peer < 0 ? std::string("any") : std::to_string(e.peer)) + " (" + event_number(e) + ")";
        progs[r].requests.push_back(std::move(req));
        progs[r].ops.push_back({RequestOp::Kind::post, q});
        by_id[e.id] = q;
        request_of[r][i] = q;
      } else if (e.kind == Event::Kind::complete) {
        if (const auto it = by_id.find(e.id); it != by_id.end())
          progs[r].ops.push_back({RequestOp::Kind::wait, it->second});
      }
    }
  }
  for (const Message& m : messages.list) {
    Request& send = progs[m.src].requests[request_of[m.src].at(m.send)];
    if (!m.recv) continue;
    Request& recv = progs[m.dst].requests[request_of[m.dst].at(*m.recv)];
    send.partner = request_of[m.dst].at(*m.recv);
    recv.partner = request_of[m.src].at(m.send);
    recv.peer = m.src;
  }
  return programs::zero_buffering(progs);
}

}  // namespace phasecheck::record
