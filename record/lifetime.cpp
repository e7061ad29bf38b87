#include "record/lifetime.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "record/elements.hpp"

namespace phasecheck::record {
namespace {

bool contiguous(const Event& e, std::uint64_t packed) { return e.span.hi - e.span.lo == packed; }

std::string call_at(const Event& e) {
  return std::string(e.kind == Event::Kind::send ? "send to " : "receive from ") +
         (e.peer < 0 ? std::string("any rank") : std::to_string(e.peer)) + " (" + event_number(e) + ")";
}

}  // namespace

CheckResult check_lifetime(const Recording& rec, const Messages& messages) {
  std::uint64_t faults = 0, sends = 0;
  std::optional<Counterexample> first;
  const auto note = [&](Counterexample c) {
    if (faults++ == 0) first = std::move(c);
  };
  // The packed size of each receive: its message's payload, when one matched it.
  std::vector<std::unordered_map<std::size_t, std::uint64_t>> received(rec.ranks);
  for (const Message& m : messages.list)
    if (m.recv) received[m.dst][*m.recv] = rec.rank[m.src].events[m.send].payload.length;

  for (Rank r = 0; r < rec.ranks; ++r) {
    const RankRecording& rr = rec.rank[r];
    std::unordered_map<std::uint64_t, std::size_t> post;  // request -> its post event
    std::map<std::uint64_t, std::size_t> pending_recv;    // request -> post, not yet complete
    for (std::size_t i = 0; i < rr.events.size(); ++i) {
      const Event& e = rr.events[i];
      switch (e.kind) {
        case Event::Kind::send:
        case Event::Kind::recv: {
          post[e.id] = i;
          const std::uint64_t packed = e.kind == Event::Kind::send ? e.payload.length : 0;
          if (e.kind == Event::Kind::send) ++sends;
          for (const auto& [id, at] : pending_recv) {
            const Event& busy = rr.events[at];
            const auto size = received[r].find(at);
            const bool exact = size != received[r].end() && contiguous(busy, size->second) &&
                               (e.kind == Event::Kind::recv
                                    ? received[r].contains(i) && contiguous(e, received[r].at(i))
                                    : contiguous(e, packed));
            if (!exact || !busy.span.overlaps(e.span)) continue;
            Counterexample c;
            c.resource = "rank " + std::to_string(r) + " bytes at " + std::to_string(e.span.lo);
            c.explanation = "rank " + std::to_string(r) + " posted its " + call_at(e) +
                            " on bytes its " + call_at(busy) +
                            " is still writing: the receive had not completed";
            note(std::move(c));
            break;
          }
          if (e.kind == Event::Kind::recv) pending_recv[e.id] = i;
          break;
        }
        case Event::Kind::complete: {
          const auto it = post.find(e.id);
          if (it == post.end()) break;
          const Event& posted = rr.events[it->second];
          if (posted.kind == Event::Kind::recv) {
            pending_recv.erase(e.id);
            break;
          }
          const auto before = rr.bytes(posted.payload);
          const auto after = rr.bytes(e.payload);
          if (before.size() == after.size() && std::equal(before.begin(), before.end(), after.begin()))
            break;
          std::size_t at = 0;
          while (at + 8 <= std::min(before.size(), after.size()) &&
                 word_at(before, at) == word_at(after, at))
            at += 8;
          Counterexample c;
          c.resource = "rank " + std::to_string(r) + " send buffer at " + std::to_string(posted.span.lo);
          c.explanation = "rank " + std::to_string(r) + " changed the buffer of its " +
                          call_at(posted) + " before the request completed";
          if (at + 8 <= std::min(before.size(), after.size()))
            c.explanation += ": element " + std::to_string(at / 8) + " was " +
                             describe_word(word_at(before, at)) + " at the send, " +
                             describe_word(word_at(after, at)) + " when it completed";
          note(std::move(c));
          break;
        }
        case Event::Kind::abort:
          break;
      }
    }
  }
  if (faults == 0)
    return {CheckId::lifetime, Verdict::pass,
            "no buffer touched while its request was in flight (" + std::to_string(sends) +
                " sends)"};
  return {CheckId::lifetime, Verdict::fail,
          std::to_string(faults) + " buffer" + (faults == 1 ? "" : "s") +
              " used while a request still owned it",
          first};
}

}  // namespace phasecheck::record
