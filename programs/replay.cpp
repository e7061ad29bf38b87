#include "programs/replay.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <string>

#include "programs/synchronization.hpp"

namespace phasecheck::programs {
namespace {

using Clock = std::vector<std::uint32_t>;

void join(Clock& into, const Clock& from) {
  for (std::size_t i = 0; i < into.size(); ++i) into[i] = std::max(into[i], from[i]);
}

std::string describe_op(const RankProgram& prog, std::size_t pc) {
  if (pc >= prog.ops.size()) return "done";
  const Op& op = prog.ops[pc];
  std::string s = std::string(to_string(op.kind)) + " (phase " + std::to_string(op.phase);
  if (op.kind != Op::Kind::wait && op.kind != Op::Kind::barrier && op.kind != Op::Kind::copy)
    s += ", peer " + std::to_string(op.peer);
  return s + ")";
}

}  // namespace

CheckResult replay(const Schedule& schedule, const Topology& model,
                   const std::vector<RankProgram>& programs) {
  const Rank p = schedule.header.ranks();
  const bool timed = p <= kMaxTimedRanks;
  CheckResult result{CheckId::replay, Verdict::pass, {}, {}};
  const auto fail = [&](std::string summary, Counterexample c) {
    result.verdict = Verdict::fail;
    result.summary = std::move(summary);
    result.counterexample = std::move(c);
    return result;
  };
  if (programs.size() != p)
    return fail("there are " + std::to_string(programs.size()) + " programs for " +
                    std::to_string(p) + " ranks",
                {});

  // Messages of the table, by (phase, position): id_of[first[phase] + position], kNone for a
  // local transfer (4 bytes a transfer).
  constexpr std::uint32_t kNone = UINT32_MAX;
  std::vector<std::size_t> first;
  std::vector<std::uint32_t> id_of;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> where;  // id -> (phase, position)
  for (std::uint32_t ph = 0; ph < schedule.phases.size(); ++ph) {
    const auto ts = schedule.phases[ph].transfers();
    first.push_back(id_of.size());
    for (std::uint32_t i = 0; i < ts.size(); ++i) {
      id_of.push_back(ts[i].local() ? kNone : static_cast<std::uint32_t>(where.size()));
      if (!ts[i].local()) where.push_back({ph, i});
    }
  }
  const auto message_id = [&](std::uint32_t ph, std::uint32_t i) {
    return ph < schedule.phases.size() && i < schedule.phases[ph].size() ? id_of[first[ph] + i]
                                                                         : kNone;
  };
  const std::size_t n = where.size();
  const auto transfer = [&](std::uint32_t m) -> const Transfer& {
    return schedule.phases[where[m].first][where[m].second];
  };

  struct RankState {
    std::size_t pc = 0;
    std::uint32_t pending = 0;           // posts not yet matched
    std::vector<std::uint32_t> matched;  // messages matched since the last wait
    Clock clock;
    bool in_barrier = false;
    std::uint64_t barrier = 0;  // the generation of the barrier it waits in
  };
  std::vector<RankState> rank(p);
  for (auto& r : rank) r.clock.assign(timed ? p : 0, 0);
  struct Post {
    std::uint32_t message;
    Clock clock;
  };
  // Posted but unmatched, by (src, dst, phase): FIFO, as MPI matches messages of one pair. An
  // entry lives while it has posts, so the maps hold what is in flight, not every message.
  std::map<std::tuple<Rank, Rank, std::uint32_t>, std::deque<Post>> sends, recvs;
  std::map<std::pair<Rank, Rank>, std::deque<Clock>> mailbox;  // sync messages in flight
  std::vector<std::uint8_t> sent(n, 0);
  std::vector<Clock> start(timed ? n : 0);
  // Per message, the clock component its wait got at src and at dst.
  std::vector<std::uint32_t> done_src(n, 0), done_dst(n, 0);
  std::uint64_t barrier_generation = 0, at_barrier = 0;

  const auto tick = [&](Rank r) {
    if (timed) ++rank[r].clock[r];
  };
  // A rank runs until it blocks, and runs again when something it may wait for happens: a match
  // of one of its posts, a synchronization message to it, a barrier's release. Posts of one pair
  // and phase match first in, first out, and everything else a rank does follows from its own
  // program, so every match and every clock is the same in whatever order ranks run; they start
  // in rank order, so a run is repeatable. The work is O(operations), not O(ranks x rounds).
  std::deque<Rank> ready;
  std::vector<std::uint8_t> queued(p, 1);
  for (Rank r = 0; r < p; ++r) ready.push_back(r);
  Rank running = 0;
  const auto wake = [&](Rank x) {
    if (queued[x] || x == running) return;
    queued[x] = 1;
    ready.push_back(x);
  };

  const auto match = [&](const Post& s, const Post& rv, Rank src, Rank dst) {
    const std::uint32_t m = s.message;
    ++sent[m];
    if (timed) {
      start[m] = s.clock;
      join(start[m], rv.clock);
    }
    --rank[src].pending;
    --rank[dst].pending;
    rank[src].matched.push_back(m);
    rank[dst].matched.push_back(m);
    wake(src);
    wake(dst);
  };

  while (!ready.empty()) {
    const Rank r = ready.front();
    ready.pop_front();
    queued[r] = 0;
    running = r;
    RankState& st = rank[r];
    const auto& ops = programs[r].ops;
    for (bool stuck = false; st.pc < ops.size() && !stuck;) {
      const Op& op = ops[st.pc];
      switch (op.kind) {
        case Op::Kind::send:
        case Op::Kind::recv: {
          const std::uint32_t id = message_id(op.phase, op.transfer);
          const bool is_send = op.kind == Op::Kind::send;
          const Rank src = is_send ? r : op.peer, dst = is_send ? op.peer : r;
          if (id == kNone || transfer(id).src != src || transfer(id).dst != dst) {
            Counterexample c;
            c.phase = op.phase;
            c.resource = "rank " + std::to_string(r);
            c.explanation = "rank " + std::to_string(r) + "'s program has a " + to_string(op.kind) +
                            " " + std::to_string(src) + " -> " + std::to_string(dst) +
                            " in phase " + std::to_string(op.phase) +
                            " that the table does not have";
            return fail("a program does not follow the table", c);
          }
          tick(r);
          ++st.pending;
          Post post{id, st.clock};
          const std::tuple<Rank, Rank, std::uint32_t> key{src, dst, op.phase};
          auto& waiting = is_send ? recvs : sends;  // the other side's posts
          const auto theirs = waiting.find(key);
          if (theirs == waiting.end()) {
            (is_send ? sends : recvs)[key].push_back(std::move(post));
          } else {
            const Post other = std::move(theirs->second.front());
            theirs->second.pop_front();
            if (theirs->second.empty()) waiting.erase(theirs);
            if (other.message != post.message) {
              Counterexample c;
              c.phase = op.phase;
              c.explanation = "the posts of " + std::to_string(src) + " -> " + std::to_string(dst) +
                              " in phase " + std::to_string(op.phase) +
                              " match different transfers of the table";
              return fail("sends and receives are matched out of order", c);
            }
            is_send ? match(post, other, src, dst) : match(other, post, src, dst);
          }
          ++st.pc;
          break;
        }
        case Op::Kind::copy:  // local (format 3): no message, nothing to match
          ++st.pc;
          break;
        case Op::Kind::wait:
          if (st.pending > 0) {
            stuck = true;
            break;
          }
          if (timed) {
            for (std::uint32_t m : st.matched) join(st.clock, start[m]);
            tick(r);
          }
          for (std::uint32_t m : st.matched)
            (transfer(m).src == r ? done_src : done_dst)[m] = timed ? st.clock[r] : 1;
          st.matched.clear();
          ++st.pc;
          break;
        case Op::Kind::sync_send:
          tick(r);
          mailbox[{r, op.peer}].push_back(st.clock);
          wake(op.peer);
          ++st.pc;
          break;
        case Op::Kind::sync_recv: {
          auto& box = mailbox[{op.peer, r}];
          if (box.empty()) {
            stuck = true;
            break;
          }
          if (timed) join(st.clock, box.front());
          box.pop_front();
          tick(r);
          ++st.pc;
          break;
        }
        case Op::Kind::barrier:
          if (!st.in_barrier) {  // arrive; the last arrival releases everyone, clocks joined
            st.in_barrier = true;
            st.barrier = barrier_generation;
            if (++at_barrier == p) {
              Clock all(timed ? p : 0, 0);
              for (const auto& x : rank) join(all, x.clock);
              for (Rank x = 0; x < p; ++x) {
                join(rank[x].clock, all);
                tick(x);
                wake(x);
              }
              ++barrier_generation;
              at_barrier = 0;
            }
          }
          if (barrier_generation == st.barrier) {
            stuck = true;
            break;
          }
          st.in_barrier = false;
          ++st.pc;
          break;
      }
    }
  }

  // (1) completion.
  std::string blocked;
  for (Rank r = 0; r < p; ++r)
    if (rank[r].pc < programs[r].ops.size())
      blocked += (blocked.empty() ? "" : ", ") + std::to_string(r) + " at " +
                 describe_op(programs[r], rank[r].pc);
  if (!blocked.empty()) {
    Counterexample c;
    c.explanation = "deadlock: ranks blocked: " + blocked;
    return fail("the programs deadlock", c);
  }
  // (2) every message exactly once.
  for (std::uint32_t m = 0; m < n; ++m)
    if (sent[m] != 1) {
      Counterexample c;
      c.phase = where[m].first;
      c.explanation = "the message " + std::to_string(transfer(m).src) + " -> " +
                      std::to_string(transfer(m).dst) + " of phase " +
                      std::to_string(where[m].first) + " is exchanged " + std::to_string(sent[m]) +
                      " times by the programs";
      return fail("the programs do not realize the table", c);
    }
  result.summary = std::to_string(p) + " programs run to completion and exchange each of the " +
                   std::to_string(n) + " messages once, in its phase";
  if (!timed) {
    result.summary += "; the ordering of contending messages was not checked (more than " +
                      std::to_string(kMaxTimedRanks) + " ranks)";
    return result;
  }
  // (3) messages sharing a link are ordered in time.
  std::map<LinkId, std::vector<std::uint32_t>> users;
  bool routed = true;
  for (std::uint32_t m = 0; m < n && routed; ++m)
    routed = for_each_link(model, transfer(m).src, transfer(m).dst,
                           [&](LinkId l) { users[l].push_back(m); });
  if (!routed) {
    result.summary += "; " + describe(model) + " does not route, so time ordering is not checked";
    return result;
  }
  std::uint64_t pairs = 0, overlapping = 0;
  for (const auto& [link, list] : users)
    for (std::size_t i = 0; i < list.size(); ++i)
      for (std::size_t j = i + 1; j < list.size(); ++j) {
        std::uint32_t a = list[i], b = list[j];
        if (where[a].first == where[b].first) continue;  // the contention check's business
        if (where[a].first > where[b].first) std::swap(a, b);
        ++pairs;
        const Transfer& x = transfer(a);
        const bool ordered = done_src[a] <= start[b][x.src] || done_dst[a] <= start[b][x.dst];
        if (ordered || overlapping++ > 0) continue;
        const Transfer& y = transfer(b);
        Counterexample c;
        c.phase = where[b].first;
        c.label = schedule.phases[where[b].first].label();
        c.phase_size = schedule.phases[where[b].first].size();
        c.transfers = {{x.src, x.dst, {}, {}}, {y.src, y.dst, {}, {}}};
        c.resource = "link " + link_name(model, link);
        c.explanation = std::to_string(y.src) + " -> " + std::to_string(y.dst) + " (phase " +
                        std::to_string(where[b].first) + ") can start before " +
                        std::to_string(x.src) + " -> " + std::to_string(x.dst) + " (phase " +
                        std::to_string(where[a].first) + ") is done, and both use link " +
                        link_name(model, link);
        result.counterexample = std::move(c);
      }
  if (overlapping > 0) {
    result.verdict = Verdict::fail;
    result.summary += "; but " + std::to_string(overlapping) + " of " + std::to_string(pairs) +
                      " pairs of messages sharing a link can overlap in time";
  } else {
    result.summary += "; all " + std::to_string(pairs) +
                      " pairs of messages sharing a link (per link) are ordered in time";
  }
  return result;
}

}  // namespace phasecheck::programs
