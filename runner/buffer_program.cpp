#include "buffer_program.hpp"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <stdexcept>

namespace phasecheck::runner {
namespace {

constexpr std::uint8_t kFill = 0xEE;                 // scratch and spare slots before a call
constexpr std::uint64_t kMaxSlots = (1u << 30) - 1;  // phasecheck's kMaxSlots
constexpr std::uint64_t kMaxIdentify = 1u << 22;     // candidate chunks tried per wrong slot
const char* const kBufferNames[] = {"input", "output", "scratch"};

[[noreturn]] void bad(const std::string& what) { throw std::runtime_error(what); }

}  // namespace

BufferRank::BufferRank(const nlohmann::json& doc, int rank, std::uint64_t bytes) : rank_(rank) {
  ranks_ = doc.at("ranks").get<int>();
  alltoall_ = doc.at("collective") == "alltoall";
  if (!alltoall_ && doc.at("collective") != "allgather")
    bad("\"collective\" must be alltoall or allgather");
  const auto chunks = doc.at("chunks").get<std::int64_t>();
  inplace_ = doc.at("inplace").get<bool>();
  if (ranks_ < 1) bad("\"ranks\" must be at least 1");
  if (chunks < 1 || chunks > 1024) bad("\"chunks\" must be in [1, 1024]");
  chunks_ = static_cast<std::uint32_t>(chunks);
  for (int b = 0; b < 3; ++b) {
    const auto n = doc.at("buffers").at(kBufferNames[b]).get<std::int64_t>();
    if (n < 0 || static_cast<std::uint64_t>(n) > kMaxSlots)
      bad(std::string("buffers.") + kBufferNames[b] + " must be in [0, 1073741823]");
    sizes_[b] = static_cast<std::uint64_t>(n);
  }
  const std::uint64_t all = std::uint64_t(ranks_) * chunks_;
  if (inplace_ && alltoall_) bad("\"inplace\" is for an allgather only");
  if (sizes_[1] < all || sizes_[0] < (alltoall_ ? all : inplace_ ? 0 : chunks_))
    bad("the buffers are too small for the collective");
  if (bytes < chunks_)
    bad("--bytes " + std::to_string(bytes) + ": fewer bytes than the " + std::to_string(chunks_) +
        " chunks of a message");
  chunk_bytes_ = bytes / chunks_;

  const auto& program = own_program(doc);
  if (program.at("rank").get<int>() != rank) bad("programs out of order");
  static const std::map<std::string, Kind> kinds = {
      {"send", Kind::send},      {"recv", Kind::recv},           {"copy", Kind::copy},
      {"wait", Kind::wait},      {"sync-send", Kind::sync_send}, {"sync-recv", Kind::sync_recv},
      {"barrier", Kind::barrier}};
  const auto segments = [&](const nlohmann::json& list, std::uint64_t& total) {
    std::vector<Segment> out;
    total = 0;
    for (const auto& s : list) {
      Segment seg;
      const std::string buffer = s.at(0).get<std::string>();
      const auto* it = std::find(std::begin(kBufferNames), std::end(kBufferNames), buffer);
      if (it == std::end(kBufferNames)) bad("unknown buffer \"" + buffer + "\"");
      seg.buffer = static_cast<int>(it - std::begin(kBufferNames));
      const auto index = s.at(1).get<std::int64_t>(), count = s.at(2).get<std::int64_t>();
      if (index < 0 || count < 1 ||
          static_cast<std::uint64_t>(index) + static_cast<std::uint64_t>(count) >
              sizes_[seg.buffer])
        bad("slots " + buffer + "[" + std::to_string(index) + "], " + std::to_string(count) +
            " of them, are not in the buffer (" + std::to_string(sizes_[seg.buffer]) + " slots)");
      seg.index = static_cast<std::uint32_t>(index);
      seg.count = static_cast<std::uint32_t>(count);
      total += seg.count;
      out.push_back(seg);
    }
    return out;
  };
  // The staged operations between two waits form one phase; staging is laid out per phase and
  // reused by the next, so it is as large as the largest phase.
  bool open = false;
  std::uint32_t open_phase = 0;
  std::uint64_t staged = 0, most = 0;
  for (const auto& o : program.at("ops")) {
    Step s;
    const auto kind = kinds.find(o.at("op").get<std::string>());
    if (kind == kinds.end()) bad("unknown op \"" + o.at("op").get<std::string>() + "\"");
    s.kind = kind->second;
    const auto phase = o.at("phase").get<std::int64_t>();
    if (phase < 0 || phase > UINT32_MAX) bad("a phase out of range");
    s.phase = static_cast<std::uint32_t>(phase);
    if (o.contains("peer")) s.peer = o.at("peer").get<int>();
    if (s.peer < 0 || s.peer >= ranks_) bad("a peer out of range");
    const bool staged_op = s.kind == Kind::send || s.kind == Kind::recv || s.kind == Kind::copy;
    if (staged_op) {
      if (open && open_phase != s.phase)
        bad("phase " + std::to_string(open_phase) + " is not waited for before phase " +
            std::to_string(s.phase));
      open = true;
      open_phase = s.phase;
      std::uint64_t from = 0, to = 0;
      if (s.kind != Kind::recv) s.from = segments(o.at("from"), from);
      if (s.kind != Kind::send) s.to = segments(o.at("to"), to);
      if (s.kind == Kind::copy && from != to)
        bad("a copy reads " + std::to_string(from) + " chunks and writes " + std::to_string(to));
      s.chunks = s.kind == Kind::recv ? to : from;
      if (s.chunks == 0) bad("a send or receive of no chunks");
      if (s.chunks > INT_MAX / chunk_bytes_)
        bad("a message of " + std::to_string(s.chunks) + " chunks of " +
            std::to_string(chunk_bytes_) + " bytes, more than an MPI count holds");
      s.staging = staged;
      staged += s.chunks;
      most = std::max(most, staged);
    } else if (s.kind == Kind::wait) {
      open = false;
      staged = 0;
    } else if (open) {
      bad("phase " + std::to_string(open_phase) + " is not waited for before its " +
          o.at("op").get<std::string>());
    }
    steps_.push_back(std::move(s));
  }
  if (open) bad("the program ends before phase " + std::to_string(open_phase) + " is waited for");
  // Sizes are at most 2^30 slots each and the run is limited to a few GiB by phasecheck; a
  // file that asks for more fails here, with bad_alloc, not later.
  for (int b = 0; b < 3; ++b) buffers_[b].resize(sizes_[b] * chunk_bytes_);
  staging_.resize(most * chunk_bytes_);
}

void BufferRank::fill(std::uint8_t* out, const Chunk& c, bool complement) const {
  const std::uint64_t base = std::uint64_t(c.part) * chunk_bytes_;
  for (std::uint64_t i = 0; i < chunk_bytes_; ++i) {
    const std::uint8_t v = pattern(c.origin, c.dest, base + i);
    out[i] = complement ? static_cast<std::uint8_t>(~v) : v;
  }
}

bool BufferRank::holds(const std::uint8_t* at, const Chunk& c) const {
  const std::uint64_t base = std::uint64_t(c.part) * chunk_bytes_;
  for (std::uint64_t i = 0; i < chunk_bytes_; ++i)
    if (at[i] != pattern(c.origin, c.dest, base + i)) return false;
  return true;
}

bool BufferRank::input_chunk(std::uint64_t i, Chunk& out) const {
  if (alltoall_) {
    if (i >= std::uint64_t(ranks_) * chunks_) return false;
    out = {rank_, static_cast<std::int64_t>(i / chunks_), static_cast<std::uint32_t>(i % chunks_)};
    return true;
  }
  if (inplace_ || i >= chunks_) return false;
  out = {rank_, -1, static_cast<std::uint32_t>(i)};
  return true;
}

BufferRank::Chunk BufferRank::expected(std::uint64_t i) const {
  return {static_cast<std::int64_t>(i / chunks_), alltoall_ ? rank_ : -1,
          static_cast<std::uint32_t>(i % chunks_)};
}

std::string BufferRank::name(const Chunk& c) const {
  return "(" + std::to_string(c.origin) + (c.dest < 0 ? "" : "," + std::to_string(c.dest)) + "," +
         std::to_string(c.part) + ")";
}

void BufferRank::reset() {
  Chunk c;
  for (std::uint64_t i = 0; i < sizes_[0]; ++i) {
    if (input_chunk(i, c))
      fill(slot(0, i), c, false);
    else
      std::fill_n(slot(0, i), chunk_bytes_, kFill);
  }
  const std::uint64_t all = std::uint64_t(ranks_) * chunks_;
  for (std::uint64_t i = 0; i < sizes_[1]; ++i) {
    if (i >= all)
      std::fill_n(slot(1, i), chunk_bytes_, kFill);
    else  // in place, the rank's own chunks are where they belong; every other slot is wrong
      fill(slot(1, i), expected(i), !(inplace_ && i / chunks_ == std::uint64_t(rank_)));
  }
  std::fill(buffers_[2].begin(), buffers_[2].end(), kFill);
}

void BufferRank::pack(const std::vector<Segment>& from, std::uint8_t* out) {
  for (const Segment& s : from) {
    const std::uint64_t n = std::uint64_t(s.count) * chunk_bytes_;
    std::copy_n(slot(s.buffer, s.index), n, out);
    out += n;
  }
}

void BufferRank::unpack(const std::uint8_t* in, const std::vector<Segment>& to) {
  for (const Segment& s : to) {
    const std::uint64_t n = std::uint64_t(s.count) * chunk_bytes_;
    std::copy_n(in, n, slot(s.buffer, s.index));
    in += n;
  }
}

void BufferRank::run() {
  std::vector<MPI_Request> requests, syncs;
  std::vector<const Step*> received;  // by request: the receive, or null for a send
  std::vector<const Step*> writes;    // receives and copies of the phase, in program order
  std::vector<MPI_Status> statuses;
  const auto tag = [](const Step& s) { return static_cast<int>(s.phase % kSyncTag); };
  const auto count = [&](const Step& s) { return static_cast<int>(s.chunks * chunk_bytes_); };
  for (const Step& s : steps_) {
    switch (s.kind) {
      case Kind::recv:
        requests.emplace_back();
        received.push_back(&s);
        writes.push_back(&s);
        MPI_Irecv(staging(s), count(s), MPI_BYTE, s.peer, tag(s), MPI_COMM_WORLD, &requests.back());
        break;
      case Kind::send:
        pack(s.from, staging(s));
        requests.emplace_back();
        received.push_back(nullptr);
        MPI_Isend(staging(s), count(s), MPI_BYTE, s.peer, tag(s), MPI_COMM_WORLD, &requests.back());
        break;
      case Kind::copy:
        pack(s.from, staging(s));
        writes.push_back(&s);
        break;
      case Kind::wait:
        statuses.resize(requests.size());
        MPI_Waitall(static_cast<int>(requests.size()), requests.data(), statuses.data());
        for (std::size_t i = 0; i < received.size(); ++i) {
          int got = 0;
          if (received[i] == nullptr) continue;
          MPI_Get_count(&statuses[i], MPI_BYTE, &got);
          if (got != count(*received[i]))
            log_.add("phase " + std::to_string(s.phase) + ": " + std::to_string(got) +
                     " bytes arrived from " + std::to_string(received[i]->peer) + ", not " +
                     std::to_string(count(*received[i])));
        }
        for (const Step* w : writes) unpack(staging(*w), w->to);
        requests.clear();
        received.clear();
        writes.clear();
        break;
      case Kind::sync_send:
        syncs.emplace_back();
        MPI_Isend(nullptr, 0, MPI_BYTE, s.peer, kSyncTag, MPI_COMM_WORLD, &syncs.back());
        break;
      case Kind::sync_recv:
        MPI_Recv(nullptr, 0, MPI_BYTE, s.peer, kSyncTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
      case Kind::barrier:
        MPI_Barrier(MPI_COMM_WORLD);
        break;
    }
  }
  MPI_Waitall(static_cast<int>(syncs.size()), syncs.data(), MPI_STATUSES_IGNORE);
}

std::string BufferRank::what_instead(const std::uint8_t* at, const Chunk* want) const {
  if (want) {
    std::uint64_t same = 0;  // bytes equal to the complement: the fill from before the call
    for (std::uint64_t i = 0; i < chunk_bytes_; ++i)
      same += at[i] == static_cast<std::uint8_t>(
                           ~pattern(want->origin, want->dest, want->part * chunk_bytes_ + i));
    if (same == chunk_bytes_) return "was never written";
  }
  if (std::all_of(at, at + chunk_bytes_, [](std::uint8_t b) { return b == kFill; }))
    return "holds no chunk (the fill of a slot never written)";
  // Another chunk's bytes? Tried only where it can be told (4 bytes or more: a wrong chunk of
  // fewer matches some chunk by chance) and affordable.
  const std::uint64_t dests = alltoall_ ? std::uint64_t(ranks_) : 1;
  if (chunk_bytes_ >= 4 && std::uint64_t(ranks_) * dests * chunks_ <= kMaxIdentify)
    for (std::int64_t o = 0; o < ranks_; ++o)
      for (std::uint64_t d = 0; d < dests; ++d)
        for (std::uint32_t k = 0; k < chunks_; ++k) {
          const Chunk c{o, alltoall_ ? static_cast<std::int64_t>(d) : -1, k};
          if (holds(at, c)) return "holds bytes of " + name(c);
        }
  if (!want) return "holds bytes of no chunk";
  std::uint64_t i = 0;
  while (i < chunk_bytes_ &&
         at[i] == pattern(want->origin, want->dest, want->part * chunk_bytes_ + i))
    ++i;
  return "differs at byte " + std::to_string(i) + " of " + std::to_string(chunk_bytes_);
}

void BufferRank::finish_call() {
  const std::uint64_t all = std::uint64_t(ranks_) * chunks_;
  for (std::uint64_t i = 0; i < all; ++i) {
    const Chunk want = expected(i);
    if (holds(slot(1, i), want)) continue;
    log_.add(log_.wants_text() ? "output[" + std::to_string(i) + "] " +
                                     what_instead(slot(1, i), &want) + ", expected " + name(want)
                               : std::string());
  }
  // The collective must leave its input as it found it (MPI's send buffer is read-only).
  Chunk c;
  for (std::uint64_t i = 0; i < sizes_[0]; ++i) {
    const std::uint8_t* at = slot(0, i);
    const bool chunk = input_chunk(i, c);
    if (chunk ? holds(at, c)
              : std::all_of(at, at + chunk_bytes_, [](std::uint8_t b) { return b == kFill; }))
      continue;
    log_.add(log_.wants_text() ? "input[" + std::to_string(i) + "] was overwritten: it " +
                                     what_instead(at, nullptr) + ", not " +
                                     (chunk ? name(c) : std::string("its fill"))
                               : std::string());
  }
  log_.end_call();
}

}  // namespace phasecheck::runner
