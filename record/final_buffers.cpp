#include "record/final_buffers.hpp"

#include <algorithm>
#include <sstream>

#include "record/elements.hpp"

namespace phasecheck::record {
namespace {

/// What the send buffer of `rank` held when the call started: its elements' tags and guards.
std::vector<std::uint8_t> initial_send(const Recording& rec, Rank rank, const Buffer& b) {
  std::vector<std::uint8_t> bytes(b.bytes, kGuardByte);
  for (std::size_t i = 0; i < b.layout.size(); ++i) {
    const std::uint64_t w = tag(sent_element(rec.collective, rank, rec.count, i));
    std::copy_n(reinterpret_cast<const std::uint8_t*>(&w), 8, bytes.begin() + b.layout[i]);
  }
  return bytes;
}

/// Where byte `at` of a buffer lies relative to its described elements.
std::string where(const Buffer& b, std::uint64_t at) {
  if (b.layout.empty()) return "(the buffer describes no element at count 0)";
  const auto [lo, hi] = std::minmax_element(b.layout.begin(), b.layout.end());
  if (at < *lo) return "in the guard before its first element";
  if (at >= *hi + 8) return "past the end of its data";
  // The element whose bytes end last before `at`.
  std::uint64_t before = 0;
  bool found = false;
  for (std::size_t i = 0; i < b.layout.size(); ++i)
    if (b.layout[i] + 8 <= at && (!found || b.layout[i] > b.layout[before])) {
      before = i;
      found = true;
    }
  return "in the hole after element " + std::to_string(before) + " (the type does not describe it)";
}

/// The message to `rank` whose payload carried `word`, if any.
const Message* brought_by(const Recording& rec, const Messages& messages, Rank rank,
                          std::uint64_t word) {
  for (const Message& m : messages.list) {
    if (m.dst != rank) continue;
    const RankRecording& s = rec.rank[m.src];
    const auto bytes = s.bytes(s.events[m.send].payload);
    for (std::size_t at = 0; at < bytes.size(); at += 8)
      if (word_at(bytes, at) == word) return &m;
  }
  return nullptr;
}

/// The elements a message carried as blocks (alltoall (o, d, k) is [o, d, k]; allgather [o] part
/// k), for drawing it; what does not decode is left out (delivery reports it).
std::vector<Block> carried(const Recording& rec, const Message& m) {
  const RankRecording& s = rec.rank[m.src];
  const auto bytes = s.bytes(s.events[m.send].payload);
  std::vector<Block> out;
  for (std::size_t at = 0; at < bytes.size(); at += 8)
    if (const auto e = decode(word_at(bytes, at)))
      out.push_back(rec.collective == Collective::alltoall ? Block{e->origin, e->dest, e->index}
                                                           : Block{e->origin, kEveryRank, e->index});
  return out;
}

struct Findings {
  std::uint64_t wrong = 0, outside = 0, send_changed = 0;
  std::optional<Counterexample> first;
};

void receive_faults(const Recording& rec, const Messages& messages, Rank r, Findings& f) {
  const RankRecording& rr = rec.rank[r];
  const Buffer& b = rr.recv;
  const auto final_bytes = rr.bytes(*rr.final_recv);
  std::vector<bool> described(b.bytes, false);
  for (std::size_t i = 0; i < b.layout.size(); ++i) {
    std::fill_n(described.begin() + b.layout[i], 8, true);
    const Element want = expected_element(rec.collective, r, rec.count, i);
    const std::uint64_t found = word_at(final_bytes, b.layout[i]);
    if (found == tag(want)) continue;
    ++f.wrong;
    if (f.first) continue;
    Counterexample c;
    c.resource = "rank " + std::to_string(r) + " receive buffer, element " + std::to_string(i) +
                 " (byte " + std::to_string(b.layout[i]) + ")";
    std::ostringstream e;
    e << "rank " << r << ": receive element " << i << " (block from " << want.origin
      << ", element " << want.index << "; byte " << b.layout[i] << " of the buffer) holds "
      << describe_word(found) << ", expected " << describe(want);
    if (const Message* m = decode(found) ? brought_by(rec, messages, r, found) : nullptr) {
      e << "; " << describe(*m) << " in step " << m->phase << " brought it";
      c.phase = m->phase;
      c.label = "step " + std::to_string(m->phase);
      for (const Message& other : messages.list) c.phase_size += other.phase == m->phase;
      c.transfers.push_back({m->src, m->dst, carried(rec, *m), {}, {}});
    } else if (decode(found)) {
      e << "; no message brought it to rank " << r << ": a local copy put it there";
    }
    c.explanation = e.str();
    f.first = std::move(c);
  }
  for (std::uint64_t at = 0; at < b.bytes; ++at) {
    if (described[at] || final_bytes[at] == kGuardByte) continue;
    const std::uint64_t start = at;
    while (at + 1 < b.bytes && !described[at + 1] && final_bytes[at + 1] != kGuardByte) ++at;
    f.outside += at - start + 1;
    if (f.first) continue;
    Counterexample c;
    c.resource = "rank " + std::to_string(r) + " receive buffer, bytes " + std::to_string(start) +
                 ".." + std::to_string(at);
    c.explanation = "rank " + std::to_string(r) + " wrote bytes " + std::to_string(start) + ".." +
                    std::to_string(at) + " of its receive buffer, " + where(b, start) +
                    ": they must keep the guard byte 0xcd";
    f.first = std::move(c);
  }
}

void send_faults(const Recording& rec, Rank r, Findings& f) {
  const RankRecording& rr = rec.rank[r];
  if (!rr.send || !rr.final_send) return;
  const auto before = initial_send(rec, r, *rr.send);
  const auto after = rr.bytes(*rr.final_send);
  for (std::uint64_t at = 0; at < before.size(); ++at) {
    if (before[at] == after[at]) continue;
    ++f.send_changed;
    if (f.first) continue;
    Counterexample c;
    c.resource = "rank " + std::to_string(r) + " send buffer, byte " + std::to_string(at);
    c.explanation = "rank " + std::to_string(r) + " changed byte " + std::to_string(at) +
                    " of its send buffer (" + where(*rr.send, at) +
                    "): the caller's send buffer is read-only";
    f.first = std::move(c);
  }
}

}  // namespace

CheckResult check_final_buffers(const Recording& rec, const Messages& messages) {
  Findings f;
  std::uint64_t elements = 0;
  for (Rank r = 0; r < rec.ranks; ++r) {
    if (!rec.rank[r].final_recv)
      return {CheckId::placement, Verdict::not_evaluated,
              "rank " + std::to_string(r) + " never returned its buffers"};
    elements += rec.rank[r].recv.layout.size();
    receive_faults(rec, messages, r, f);
    send_faults(rec, r, f);
  }
  if (!f.first)
    return {CheckId::placement, Verdict::pass,
            "every rank's " + std::to_string(elements / rec.ranks) +
                " receive elements hold what the collective defines; guards, holes and send "
                "buffers untouched"};
  std::ostringstream s;
  s << f.wrong << " wrong element" << (f.wrong == 1 ? "" : "s") << ", " << f.outside
    << " byte" << (f.outside == 1 ? "" : "s") << " written outside the receive data, "
    << f.send_changed << " send-buffer byte" << (f.send_changed == 1 ? "" : "s") << " changed";
  return {CheckId::placement, Verdict::fail, s.str(), f.first};
}

}  // namespace phasecheck::record
