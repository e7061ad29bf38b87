#include "record/messages.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include "core/error.hpp"
#include "core/ordinal.hpp"

namespace phasecheck::record {
namespace {

constexpr std::uint32_t kUnknown = std::numeric_limits<std::uint32_t>::max();

/// Sets each message's phase: the causal level (messages.hpp). O(events + messages).
std::uint32_t level(const Recording& rec, std::vector<Message>& list) {
  const Rank p = rec.ranks;
  // For every rank, the message each of its receive completions took.
  std::vector<std::unordered_map<std::size_t, std::size_t>> taken(p);
  // For every rank, its sends' messages in order.
  std::vector<std::vector<std::size_t>> sends(p);
  for (std::size_t m = 0; m < list.size(); ++m) {
    sends[list[m].src].push_back(m);
    if (list[m].completion) taken[list[m].dst][*list[m].completion] = m;
  }
  for (Message& m : list) m.phase = kUnknown;
  std::vector<std::size_t> cursor(p, 0), next_send(p, 0);
  std::vector<std::uint32_t> floor(p, 0);  // the least phase the rank's next send may have
  std::uint32_t phases = 0;
  for (bool progress = true; progress;) {
    progress = false;
    for (Rank r = 0; r < p; ++r) {
      const auto& events = rec.rank[r].events;
      while (cursor[r] < events.size()) {
        const Event& e = events[cursor[r]];
        if (e.kind == Event::Kind::send) {
          Message& m = list[sends[r][next_send[r]++]];
          m.phase = floor[r];
          floor[r] = m.phase + 1;
          phases = std::max(phases, floor[r]);
        } else if (e.kind == Event::Kind::complete) {
          if (const auto it = taken[r].find(cursor[r]); it != taken[r].end()) {
            const Message& m = list[it->second];
            if (m.phase == kUnknown) break;  // its sender has not got there yet
            floor[r] = std::max(floor[r], m.phase + 1);
          }
        }
        ++cursor[r];
        progress = true;
      }
    }
  }
  for (Rank r = 0; r < p; ++r)
    if (cursor[r] < rec.rank[r].events.size())
      throw InputError(rec.rank[r].file + ":" + std::to_string(rec.rank[r].events[cursor[r]].line) +
                       ": this receive completed before its message was sent (not one run)");
  return phases;
}

}  // namespace

std::string describe(const Message& m) {
  return "rank " + std::to_string(m.src) + "'s " + ordinal(m.step + 1) + " send (to " +
         std::to_string(m.dst) + ", tag " + std::to_string(m.tag) + ")";
}

Messages match_messages(const Recording& rec) {
  using Key = std::tuple<Rank, Rank, std::int64_t>;  // src, dst, tag
  std::map<Key, std::deque<std::size_t>> sends;      // message indices waiting for a receive
  Messages out;
  for (Rank r = 0; r < rec.ranks; ++r) {
    std::uint32_t step = 0;
    const auto& events = rec.rank[r].events;
    for (std::size_t i = 0; i < events.size(); ++i) {
      const Event& e = events[i];
      if (e.kind != Event::Kind::send) continue;
      if (e.peer >= static_cast<std::int64_t>(rec.ranks))
        throw InputError(rec.rank[r].file + ":" + std::to_string(e.line) + ": rank " +
                         std::to_string(e.peer) +
                         " does not exist (ranks: " + std::to_string(rec.ranks) + ")");
      Message m;
      m.src = r;
      m.dst = static_cast<Rank>(e.peer);
      m.tag = e.tag;
      m.send = i;
      m.step = step++;
      sends[{m.src, m.dst, m.tag}].push_back(out.list.size());
      out.list.push_back(m);
    }
  }
  for (Rank d = 0; d < rec.ranks; ++d) {
    const auto& events = rec.rank[d].events;
    // Each receive's completion, by request.
    std::unordered_map<std::uint64_t, std::size_t> completion;
    for (std::size_t i = 0; i < events.size(); ++i)
      if (events[i].kind == Event::Kind::complete) completion.emplace(events[i].id, i);
    for (std::size_t i = 0; i < events.size(); ++i) {
      const Event& e = events[i];
      if (e.kind != Event::Kind::recv) continue;
      const auto done = completion.find(e.id);
      if (done == completion.end()) continue;  // never completed: it took nothing we know of
      const Event& c = events[done->second];
      if (c.peer >= static_cast<std::int64_t>(rec.ranks))
        throw InputError(rec.rank[d].file + ":" + std::to_string(c.line) + ": source rank " +
                         std::to_string(c.peer) + " does not exist");
      auto& queue = sends[{static_cast<Rank>(c.peer), d, c.tag}];
      if (queue.empty()) {
        out.unmatched.push_back("rank " + std::to_string(d) + "'s receive (" + event_number(e) +
                                ") completed from rank " + std::to_string(c.peer) + ", tag " +
                                std::to_string(c.tag) + ", which sent nothing to match it");
        continue;
      }
      Message& m = out.list[queue.front()];
      queue.pop_front();
      m.recv = i;
      m.completion = done->second;
    }
  }
  out.phases = level(rec, out.list);
  return out;
}

RecordedTable recorded_table(const Recording& rec, const Messages& messages, const Topology& model,
                             const std::string& algorithm) {
  RecordedTable out;
  Schedule s;
  s.header.algorithm = algorithm;
  s.header.collective = rec.collective;
  s.header.topology = model;
  s.header.parts = rec.count;
  s.header.inplace = rec.inplace;
  s.phases.resize(messages.phases);
  for (std::uint32_t t = 0; t < messages.phases; ++t)
    s.phases[t].set_label("step " + std::to_string(t));
  std::vector<Block> blocks;
  for (const Message& m : messages.list) {
    const RankRecording& sender = rec.rank[m.src];
    const auto bytes = sender.bytes(sender.events[m.send].payload);
    blocks.clear();
    for (std::size_t at = 0; at < bytes.size(); at += 8) {
      const std::uint64_t word = word_at(bytes, at);
      const auto e = decode(word);
      const bool alltoall = rec.collective == Collective::alltoall;
      const bool fits = e && e->origin < rec.ranks && e->index < rec.count &&
                        (alltoall ? e->dest < rec.ranks : e->dest == kAnyDest);
      if (!fits) {
        out.bad = describe(m) + " carried " + describe_word(word) + " as its element " +
                  std::to_string(at / 8) + ": not an element of this " +
                  (alltoall ? "alltoall" : "allgather") + " of " + std::to_string(rec.ranks) +
                  " ranks and " + std::to_string(rec.count) + " elements a block";
        out.bad_phase = m.phase;
        return out;
      }
      blocks.push_back(alltoall ? Block{e->origin, e->dest, e->index}
                                : Block{e->origin, kEveryRank, e->index});
    }
    if (blocks.empty()) continue;  // a message of no data (a handshake) moves nothing
    s.phases[m.phase].add(m.src, m.dst, blocks);
  }
  out.schedule = std::move(s);
  return out;
}

}  // namespace phasecheck::record
